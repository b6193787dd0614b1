package dynamodblocal

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Items returns every item of table, read consistently, each as one line
// of its attributes in name order (type and value, binary in hex, sets
// sorted), the lines sorted: a table's whole content, to compare before
// and after, byte for byte. An attribute of a type it does not render
// fails t.
func Items(t testing.TB, api *dynamodb.Client, table string) []string {
	t.Helper()
	var lines []string
	p := dynamodb.NewScanPaginator(api, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range out.Items {
			var b strings.Builder
			for _, name := range slices.Sorted(maps.Keys(item)) {
				switch v := item[name].(type) {
				case *types.AttributeValueMemberS:
					fmt.Fprintf(&b, "%s=S:%s ", name, v.Value)
				case *types.AttributeValueMemberN:
					fmt.Fprintf(&b, "%s=N:%s ", name, v.Value)
				case *types.AttributeValueMemberB:
					fmt.Fprintf(&b, "%s=B:%x ", name, v.Value)
				case *types.AttributeValueMemberBOOL:
					fmt.Fprintf(&b, "%s=BOOL:%v ", name, v.Value)
				case *types.AttributeValueMemberNS:
					fmt.Fprintf(&b, "%s=NS:%v ", name, slices.Sorted(slices.Values(v.Value)))
				case *types.AttributeValueMemberSS:
					fmt.Fprintf(&b, "%s=SS:%q ", name, slices.Sorted(slices.Values(v.Value)))
				default:
					t.Fatalf("attribute %s of type %T", name, v)
				}
			}
			lines = append(lines, b.String())
		}
	}
	slices.Sort(lines)
	return lines
}
