package faultproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fault"
)

// dataPlane are the operations DynamoDB throttles with
// ProvisionedThroughputExceededException; it throttles the others (the
// control plane: DescribeTable, ...) with ThrottlingException.
var dataPlane = []string{"PutItem", "UpdateItem", "DeleteItem", "GetItem", "Query", "Scan", "BatchWriteItem", "BatchGetItem"}

// StartFaults starts a proxy to target (DynamoDB Local's URL) that makes
// every request for one of ops (X-Amz-Target's operation: DescribeTable,
// PutItem, ...) misbehave as inj says, in DynamoDB's own answers (HTTP
// status, x-amzn-ErrorType and a JSON 1.0 body):
//
//   - fault.Hang: held, unanswered, until the client gives up;
//   - fault.ServerError: 500 InternalServerError;
//   - fault.Throttle: 400 ProvisionedThroughputExceededException (with
//     ThrottlingReasons) for a data-plane operation, ThrottlingException
//     for the control plane;
//   - fault.Denied: 400 AccessDeniedException, as for a role without the
//     permission;
//   - fault.Slow: served by DynamoDB Local after inj's delay, even when the
//     client has given up by then: a write still lands.
//
// Other requests pass through. It returns the proxy's URL; the proxy stops
// when the test ends.
func StartFaults(t testing.TB, target string, inj *fault.Injector, ops ...string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatalf("faultproxy: target %q: %v", target, err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
		if !slices.Contains(ops, op) {
			rp.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		id := fmt.Sprintf("FAULT%011d", n.Add(1))
		switch inj.Apply(r) {
		case fault.Hang:
			return
		case fault.ServerError:
			writeError(w, http.StatusInternalServerError, "InternalServerError", id, map[string]any{"message": "Internal server error"})
			return
		case fault.Throttle:
			if !slices.Contains(dataPlane, op) {
				writeError(w, http.StatusBadRequest, "ThrottlingException", id, map[string]any{"message": "Rate of requests exceeds the allowed throughput."})
				return
			}
			writeError(w, http.StatusBadRequest, "ProvisionedThroughputExceededException", id, map[string]any{
				"message": "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.",
				"ThrottlingReasons": []map[string]string{{
					"reason":   "TableWriteProvisionedThroughputExceeded",
					"resource": "arn:aws:dynamodb:us-east-1:123456789012:table/" + tableOf(body),
				}},
			})
			return
		case fault.Denied:
			writeError(w, http.StatusBadRequest, "AccessDeniedException", id, map[string]any{"message": "User: arn:aws:sts::123456789012:assumed-role/hotkeys-HotKeysFunctionRole/hotkeys is not authorized to perform: dynamodb:" + op +
				" on resource: arn:aws:dynamodb:us-east-1:123456789012:table/" + tableOf(body) + " because no identity-based policy allows the dynamodb:" + op + " action"})
			return
		}
		forward(rp, w, r, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// tableOf is the TableName of a request body.
func tableOf(body []byte) string {
	var req struct{ TableName string }
	json.Unmarshal(body, &req)
	return req.TableName
}
