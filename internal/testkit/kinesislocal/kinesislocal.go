// Package kinesislocal is test support for the tests that run against a real
// local Kinesis Data Streams: kinesalite (npm, pinned in ./npm), which `make
// test` installs into .cache/kinesalite and starts through
// scripts/with-kinesalite, in memory, on a free loopback port.
//
// Tests call Endpoint (or Client) first: without a running kinesalite they
// skip on a developer's machine and fail in CI, so that CI can never go
// green by skipping them, as internal/testkit/dynamodblocal's do.
//
// What kinesalite 3.3.3 answers, and what it does not (its tests here pin
// each): docs/kinesis.md, "A local Kinesis".
package kinesislocal

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
)

// EndpointEnv names the environment variable that scripts/with-kinesalite
// sets to kinesalite's URL.
const EndpointEnv = "HOTKEYS_TEST_KINESIS_ENDPOINT"

// Region is the region the client is configured for. kinesalite puts it in
// the ARNs it returns.
const Region = "us-east-1"

// Account is the account ID kinesalite puts in every ARN it makes.
const Account = "000000000000"

// Endpoint returns kinesalite's URL. When it is not set, the test is
// skipped, unless the CI environment variable is set: then it fails.
func Endpoint(t testing.TB) string {
	t.Helper()
	return dynamodblocal.EndpointOf(t, EndpointEnv, "kinesalite")
}

// Client returns a Kinesis client for kinesalite with dummy static
// credentials. It never reads the AWS config chain, so a developer's
// profile or environment cannot redirect it.
func Client(t testing.TB) *kinesis.Client {
	t.Helper()
	return kinesis.New(kinesis.Options{
		BaseEndpoint: aws.String(Endpoint(t)),
		Region:       Region,
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		Retryer:      dynamodblocal.Retryer(),
	})
}

// safetyNet bounds a call that would otherwise hang; no outcome depends on it.
const safetyNet = 3 * time.Minute

// StreamARN returns the ARN kinesalite gives stream name.
func StreamARN(name string) string {
	return "arn:aws:kinesis:" + Region + ":" + Account + ":stream/" + name
}

// CreateStream creates a provisioned stream of shards shards, waits until it
// is ACTIVE and returns its name and ARN. The stream is deleted when the
// test ends. prefix names it for readable failures ("" for "hotkeys").
func CreateStream(t testing.TB, api *kinesis.Client, prefix string, shards int32) (name, arn string) {
	t.Helper()
	// The same unique name as a DynamoDB Local table's: Kinesis allows its
	// characters, and kinesalite is shared by every test binary of a run.
	name = dynamodblocal.TableName(prefix)
	// The timeouts guard against a hang only: on a loaded machine, under
	// the race detector, with every test binary sharing one kinesalite
	// (node, one thread), a call has been seen to wait past 30 s.
	ctx, cancel := context.WithTimeout(context.Background(), safetyNet)
	defer cancel()
	if _, err := api.CreateStream(ctx, &kinesis.CreateStreamInput{StreamName: aws.String(name), ShardCount: aws.Int32(shards)}); err != nil {
		t.Fatalf("kinesislocal: create stream %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), safetyNet)
		defer cancel()
		_, err := api.DeleteStream(ctx, &kinesis.DeleteStreamInput{StreamName: aws.String(name)})
		var gone *types.ResourceNotFoundException
		if err != nil && !errors.As(err, &gone) {
			t.Errorf("kinesislocal: delete stream %s: %v", name, err)
		}
	})
	arn, err := WaitActive(ctx, api, name)
	if err != nil {
		t.Fatalf("kinesislocal: %v", err)
	}
	return name, arn
}

// WaitActive waits until stream name is ACTIVE (after CreateStream, a split
// or a merge) and returns its ARN.
//
// Kinesis has no event for a stream becoming ACTIVE: polling its status is
// the wait (scripts/with-kinesalite makes it immediate), and only how long
// it takes depends on the machine, not the outcome.
func WaitActive(ctx context.Context, api *kinesis.Client, name string) (string, error) {
	for {
		out, err := api.DescribeStreamSummary(ctx, &kinesis.DescribeStreamSummaryInput{StreamName: aws.String(name)})
		if err != nil {
			return "", fmt.Errorf("describe stream %s: %w", name, err)
		}
		d := out.StreamDescriptionSummary
		if d.StreamStatus == types.StreamStatusActive {
			return aws.ToString(d.StreamARN), nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("stream %s not ACTIVE but %s: %w", name, d.StreamStatus, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
