package clientwatch_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/report"
)

// TestIndexPartitionKeysGiven: a global secondary index's key given in
// Options.IndexPartitionKeys charges its queries as DescribeTable's does.
func TestIndexPartitionKeysGivenOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	plain := newClient(ep, nil, nil)
	table := sortKeyedTable(t, plain)
	putItems(t, plain, table)
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{table: "pk"}
	opts.IndexPartitionKeys = map[string]map[string]string{table: {"byG": "g"}}
	checkIndexQueries(t, ep, table, opts)
}

// records is a slog.Handler that keeps what it is given, as text.
type records struct {
	mu    sync.Mutex
	lines []string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	line := rec.Level.String() + " " + rec.Message
	rec.Attrs(func(a slog.Attr) bool {
		line += " " + a.String()
		return true
	})
	r.mu.Lock()
	r.lines = append(r.lines, line)
	r.mu.Unlock()
	return nil
}

func (r *records) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.lines
	r.lines = nil
	return l
}

// deniedDescribe refuses DescribeTable as IAM does without the permission.
type deniedDescribe struct{}

func (deniedDescribe) DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return nil, &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "not authorized to perform: dynamodb:DescribeTable"}
}

// failingPublisher refuses every report.
type failingPublisher struct{}

func (failingPublisher) Publish(context.Context, []report.ClientReport) error {
	return errors.New("cloudwatch: PutMetricData: AccessDenied")
}

// TestFailuresAreLogged: a DescribeTable that fails and a publish that
// fails never reach a caller's call; the Logger hears of both, and
// Failures counts them.
func TestFailuresAreLogged(t *testing.T) {
	srv := instantServer(t)
	logs := &records{}
	opts := clientwatch.DefaultOptions()
	opts.Describe = deniedDescribe{}
	opts.Publisher = failingPublisher{}
	opts.Logger = slog.New(logs)
	w := newWatcher(t, opts)
	if _, err := newClient(srv.URL, w, srv.Client()).GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String("Users"),
		Key: map[string]types.AttributeValue{"pk": s("user#1")}}); err != nil {
		t.Fatal(err)
	}
	w.AwaitSchemas()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Run(ctx); err != nil { // publishes the open window, and returns
		t.Fatal(err)
	}
	want := []string{
		`WARN clientwatch: DescribeTable failed: the table's calls count as unattributed until it answers (tried again in a minute) table=Users error=keyschema: describe table "Users": api error AccessDeniedException: not authorized to perform: dynamodb:DescribeTable`,
		`WARN clientwatch: publishing a window's report failed table=Users index= start=2026-11-23 12:00:00 +0000 UTC error=cloudwatch: PutMetricData: AccessDenied`,
	}
	if diff := cmp.Diff(want, logs.take()); diff != "" {
		t.Errorf("logged (-want +got):\n%s", diff)
	}
	if got, want := w.Failures(), (clientwatch.Failures{DescribeTable: 1, Publish: 1}); got != want {
		t.Errorf("Failures() = %+v, want %+v", got, want)
	}
}
