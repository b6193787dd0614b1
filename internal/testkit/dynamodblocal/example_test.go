package dynamodblocal_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
)

func TestMain(m *testing.M) { dynamodblocal.Main(m) }

// A table for an example, ACTIVE when it is returned.
func ExampleTableForExample() {
	api, name, drop := dynamodblocal.TableForExample(dynamodblocal.TableSpec{Prefix: "example", HashKey: "pk", NoStream: true})
	defer drop()
	out, err := api.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Table.TableStatus, *out.Table.KeySchema[0].AttributeName)
	// Output: ACTIVE pk
}

// TestMainLeavesExamplesOut runs this test binary's examples again without
// DynamoDB Local: outside CI, Main leaves them out and the run passes; in
// CI they run, and fail, saying to run make test.
func TestMainLeavesExamplesOut(t *testing.T) {
	for _, tc := range []struct {
		ci       string
		wantFail bool
		wantText string
	}{
		{"", false, "the examples are left out"},
		{"true", true, "run `make test`"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^Example", "-test.v")
		cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
			return strings.HasPrefix(kv, dynamodblocal.EndpointEnv+"=") || strings.HasPrefix(kv, "CI=")
		})
		if tc.ci != "" {
			cmd.Env = append(cmd.Env, "CI="+tc.ci)
		}
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != tc.wantFail {
			t.Errorf("CI=%q: failed=%v, want %v; output:\n%s", tc.ci, failed, tc.wantFail, out)
		}
		if ran := strings.Contains(string(out), "=== RUN   ExampleTableForExample"); ran != tc.wantFail {
			t.Errorf("CI=%q: example run %v, want %v; output:\n%s", tc.ci, ran, tc.wantFail, out)
		}
		if !strings.Contains(string(out), tc.wantText) {
			t.Errorf("CI=%q: output lacks %q:\n%s", tc.ci, tc.wantText, out)
		}
	}
}
