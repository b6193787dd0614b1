package store

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// ClientOptions sets a DynamoDB client up for reading a history table:
// each response body is read whole before the SDK decodes it, so that the
// SDK's JSON decoder works from memory, not from the connection. Decoding
// `hotkeys history`'s 1 MB Query pages from the connection, the SDK now
// and then fails a page after its retries with "use of closed network
// connection" (aws-sdk-go-v2 issues 1825 and 2737, seen against DynamoDB);
// the scale measurement in docs/history.md saw it end three runs of eight
// of the build before this one, and none since. An error while reading is
// the transport's, which the SDK retries. The SDK's check of X-Amz-Crc32
// is left as it is (it logs a mismatch and keeps the page); every stored
// summary carries a CRC-32C that its decoder checks.
func ClientOptions(o *dynamodb.Options) {
	next := o.HTTPClient
	if next == nil {
		next = awshttp.NewBuildableClient()
	}
	o.HTTPClient = wholeBodies{next}
}

// wholeBodies reads each response body whole.
type wholeBodies struct{ next dynamodb.HTTPClient }

var _ dynamodb.HTTPClient = wholeBodies{}

func (w wholeBodies) Do(req *http.Request) (*http.Response, error) {
	resp, err := w.next.Do(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("store: reading the response: %w", err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}
