package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"

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
	// Credentials are asked for now, so that their absence is said as
	// such, with where they were looked for, rather than as the last link
	// of the chain's failure ("no EC2 IMDS role found") on the first call.
	if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
		return aws.Config{}, fmt.Errorf("%s: %s (the AWS SDK said: %w)", command, noCredentials(a.profile), err)
	}
	return cfg, nil
}

// noCredentials says that no credentials were found, where the SDK's
// default chain looked, in its order, and what to do.
func noCredentials(profile string) string {
	p := cmp.Or(profile, os.Getenv("AWS_PROFILE"), "default")
	return "no AWS credentials found. Looked, in order, in: the environment (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY); " +
		"the shared files (" + cmp.Or(os.Getenv("AWS_SHARED_CREDENTIALS_FILE"), "~/.aws/credentials") + " and " + cmp.Or(os.Getenv("AWS_CONFIG_FILE"), "~/.aws/config") +
		", profile " + strconv.Quote(p) + ": keys, SSO, a role to assume, a credential process); a web identity token (AWS_WEB_IDENTITY_TOKEN_FILE); " +
		"a container's role (ECS, AWS_CONTAINER_CREDENTIALS_*); an EC2 instance's role (IMDS). Run `aws configure` or `aws sso login`, " +
		"set AWS_PROFILE (or --profile), or, for DynamoDB Local, set AWS_ENDPOINT_URL_DYNAMODB and dummy AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
}
