package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
)

// awsFlags choose the AWS configuration of the commands that call AWS
// (watch, history): the standard chain, with these two overrides.
type awsFlags struct{ region, profile string }

func (a *awsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&a.region, "region", "", "AWS `region` (default: from the AWS configuration)")
	fs.StringVar(&a.profile, "profile", "", "AWS shared-config `profile` (default: AWS_PROFILE or default)")
}

// load reads the AWS configuration. The DynamoDB clients built from it keep
// the SDK's X-Amz-Crc32 check of every response: a corrupted page of
// records or summaries is then an error, never figures.
func (a awsFlags) load(ctx context.Context, command string) (aws.Config, error) {
	var opts []func(*config.LoadOptions) error
	if a.region != "" {
		opts = append(opts, config.WithRegion(a.region))
	}
	if a.profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(a.profile))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("%s: loading AWS configuration: %w", command, err)
	}
	return cfg, nil
}
