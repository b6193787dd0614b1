package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
)

const clientDemoAbout = `Runs a skewed workload through an aws-sdk-go-v2 DynamoDB client instrumented
by the client-side detector (package clientwatch), against DynamoDB Local or
any DynamoDB endpoint, then prints what the client saw per partition key:
a 40 KB celebrity profile read with strongly consistent reads (read-hot: a
partition serves at most 3,000 RCU/s), a page-view counter updated in place
(write-hot), and a tail of ordinary users. It creates a table of its own and
deletes it afterwards. 'make client-demo' starts DynamoDB Local for it.

How hot the keys run depends on how fast the endpoint answers: DynamoDB
Local on a laptop serves a few hundred calls a second.

Examples:
  make client-demo ARGS='--calls 2000 --format json'
  make client-demo ARGS='--estimate-capacity'
  hotkeys client-demo --endpoint http://127.0.0.1:8000 --workers 8
`

func runClientDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, o := newFlagSet("client-demo", "--endpoint URL [flags]", clientDemoAbout, stderr)
	endpoint := fs.String("endpoint", os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"), "DynamoDB `URL`, e.g. DynamoDB Local's http://127.0.0.1:8000 (default $AWS_ENDPOINT_URL_DYNAMODB)")
	calls, workers := new(int), new(int)
	intFlag(fs, calls, "calls", 4000, "`n` calls to make")
	intFlag(fs, workers, "workers", 4, "`n` goroutines making them")
	estimate := fs.Bool("estimate-capacity", false, "estimate RCU and WCU from item sizes instead of asking DynamoDB for ConsumedCapacity (clientwatch's EstimateCapacity)")
	if err := o.parse(fs, args); err != nil {
		return err
	}
	switch {
	case *endpoint == "":
		return usageError{errors.New("--endpoint: required (start DynamoDB Local with 'make client-demo', or set $AWS_ENDPOINT_URL_DYNAMODB)")}
	case *calls < 1 || *calls > 1_000_000:
		return usageError{fmt.Errorf("--calls %d: want 1 to 1000000", *calls)}
	case *workers < 1 || *workers > 256:
		return usageError{fmt.Errorf("--workers %d: want 1 to 256", *workers)}
	}
	opts := clientwatch.DefaultOptions()
	opts.Detector = o.cfg
	table := "hotkeys-client-demo-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	opts.PartitionKeys = map[string]string{table: "pk"}
	opts.EstimateCapacity = *estimate
	w, err := clientwatch.New(opts)
	if err != nil {
		return usageError{flagError(err)}
	}
	dbOpts := dynamodb.Options{
		BaseEndpoint: aws.String(*endpoint),
		Region:       "us-east-1",
		// DynamoDB Local takes any credentials; a real endpoint needs the
		// default chain, which this demo does not read on purpose.
		Credentials:                     credentials.NewStaticCredentialsProvider("demo", "demo", ""),
		DisableValidateResponseChecksum: true,
	}
	plain := dynamodb.New(dbOpts)
	client := dynamodb.New(dbOpts, w.ClientOption())

	if err := createDemoTable(ctx, plain, table); err != nil {
		return err
	}
	defer func() {
		_, _ = plain.DeleteTable(context.WithoutCancel(ctx), &dynamodb.DeleteTableInput{TableName: &table})
	}()
	if err := seedDemoTable(ctx, client, table); err != nil {
		return fmt.Errorf("client-demo: seed %s: %w", *endpoint, err)
	}
	fmt.Fprintf(stderr, "hotkeys client-demo: %d calls on table %s at %s ...\n", *calls, table, *endpoint)
	if err := runDemoWorkload(ctx, client, table, *calls, *workers); err != nil {
		return fmt.Errorf("client-demo: %w", err)
	}
	rw := newClientReportWriter(o.format, stdout, o.output(stdout, false, false).table.width)
	if err := rw.Write(w.Reports()); err != nil {
		return err
	}
	return rw.Close()
}

// seedDemoTable writes the workload's items: the celebrity's 40 KB
// profile, the counter, and 50 ordinary users.
func seedDemoTable(ctx context.Context, client *dynamodb.Client, table string) error {
	seed := map[string]string{"PROFILE#celebrity": strings.Repeat("x", 40_000), "COUNTER#page-views": ""}
	for i := range 50 {
		seed["USER#"+strconv.Itoa(i)] = "hello"
	}
	for k, v := range seed {
		item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k}}
		if v != "" {
			item["v"] = &types.AttributeValueMemberS{Value: v}
		}
		if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item}); err != nil {
			return err
		}
	}
	return nil
}

// runDemoWorkload makes calls demo calls from workers goroutines, and
// returns the first error any of them met (each stops at its own).
func runDemoWorkload(ctx context.Context, client *dynamodb.Client, table string, calls, workers int) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	per := calls / workers
	for i := range workers {
		n := per
		if i == 0 {
			n += calls % workers
		}
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(i), 2026))
			for range n {
				if ctx.Err() != nil {
					return
				}
				if err := demoCall(ctx, client, table, r); err != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, err)
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// demoCall makes one call of the skewed workload.
func demoCall(ctx context.Context, c *dynamodb.Client, table string, r *rand.Rand) error {
	key := func(k string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k}}
	}
	var err error
	switch x := r.IntN(100); {
	case x < 50:
		_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: key("PROFILE#celebrity"), ConsistentRead: aws.Bool(true)})
	case x < 75:
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key("COUNTER#page-views"),
			UpdateExpression:          aws.String("ADD n :one"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}})
	default:
		_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: key("USER#" + strconv.Itoa(r.IntN(50)))})
	}
	return err
}

func createDemoTable(ctx context.Context, c *dynamodb.Client, table string) error {
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            &table,
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		return fmt.Errorf("client-demo: create table %s: %w", table, err)
	}
	for {
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &table})
		if err != nil {
			return fmt.Errorf("client-demo: describe table %s: %w", table, err)
		}
		if d.Table.TableStatus == types.TableStatusActive {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
