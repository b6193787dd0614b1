// Package faultproxy is test support: a reverse proxy in front of DynamoDB
// Local that throttles a deterministic share of one partition key's
// requests the way DynamoDB itself does, because DynamoDB Local never
// throttles:
//
//   - a single-item call, a Query or a whole batch gets the throttling
//     error DynamoDB sends (HTTP 400, the x-amzn-ErrorType header and a
//     JSON 1.0 body with __type, message and ThrottlingReasons);
//   - a transaction gets TransactionCanceledException, with one
//     CancellationReasons entry per item: ThrottlingError for the items
//     that name the key, None for the others;
//   - with Rule.Unprocessed, a batch that names other keys too has the
//     key's items handed back in UnprocessedItems (BatchWriteItem) or
//     UnprocessedKeys (BatchGetItem), the rest done by DynamoDB Local;
//   - with Rule.Hold, the requests the rule lets through are held instead,
//     answered never, until the client gives up (its context ends): the
//     deterministic way to end a call in flight.
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
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Rule says which requests to throttle: of every Period requests that
// name partition key Value in attribute Attribute (in a Key, an Item, a
// batch's or a transaction's items, or a Query's ExpressionAttributeValues
// or KeyConditions), the first Throttle are refused. With Period 3 and
// Throttle 2 and the SDK's default 3 attempts, every call on the key is
// throttled exactly twice and then succeeds.
type Rule struct {
	Attribute, Value string
	Period, Throttle int
	// ErrorType is the exception's name; ProvisionedThroughputExceededException
	// by default. Transactions always get TransactionCanceledException.
	ErrorType string
	// Reason and Resource fill ThrottlingReasons, e.g.
	// TableReadKeyRangeThroughputExceeded and the table's ARN.
	Reason, Resource string
	// Unprocessed: a throttled BatchWriteItem or BatchGetItem that names
	// other keys too is not refused; the key's items come back in
	// UnprocessedItems or UnprocessedKeys.
	Unprocessed bool
	// Hold: a request the rule does not throttle is held, unanswered,
	// until the client closes the connection; Held reports each one.
	Hold bool
}

// Proxy is a running fault-injecting proxy.
type Proxy struct {
	URL string

	rule  Rule
	held  chan struct{}
	mu    sync.Mutex
	seen  int // requests naming the key
	count int // of which throttled (refused, or answered with unprocessed items)
}

// Start starts a proxy to target (DynamoDB Local's URL), stopped when the
// test ends.
func Start(t testing.TB, target string, rule Rule) *Proxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatalf("faultproxy: target %q: %v", target, err)
	}
	if rule.Period <= 0 || rule.Throttle < 0 || rule.Throttle > rule.Period {
		t.Fatalf("faultproxy: rule throttles %d of every %d", rule.Throttle, rule.Period)
	}
	if rule.ErrorType == "" {
		rule.ErrorType = "ProvisionedThroughputExceededException"
	}
	p := &Proxy{rule: rule, held: make(chan struct{}, 64)}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
		var req map[string]any
		if json.Unmarshal(body, &req) != nil {
			req = nil
		}
		matches := p.matching(op, req)
		if len(matches) == 0 {
			forward(rp, w, r, body)
			return
		}
		if !p.throttle() {
			if p.rule.Hold {
				p.held <- struct{}{}
				<-r.Context().Done() // the client gave up: nobody reads an answer
				return
			}
			forward(rp, w, r, body)
			return
		}
		switch {
		case op == "TransactWriteItems" || op == "TransactGetItems":
			p.cancelTransaction(w, matches, len(items(op, req)))
		case p.rule.Unprocessed && (op == "BatchWriteItem" || op == "BatchGetItem") && len(matches) < len(items(op, req)):
			p.leaveUnprocessed(w, r, rp, op, req)
		default:
			p.refuse(w)
		}
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

func forward(rp *httputil.ReverseProxy, w http.ResponseWriter, r *http.Request, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	rp.ServeHTTP(w, r)
}

// Throttled returns how many requests the proxy has throttled.
func (p *Proxy) Throttled() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.count
}

// Held receives once for each request the proxy starts holding (Rule.Hold).
func (p *Proxy) Held() <-chan struct{} { return p.held }

// throttle counts one request naming the key and says whether to throttle it.
func (p *Proxy) throttle() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	refuse := p.seen%p.rule.Period < p.rule.Throttle
	p.seen++
	if refuse {
		p.count++
	}
	return refuse
}

// item is one item of a request: its table and the attribute values that
// name its key.
type item struct {
	table string
	key   map[string]any
}

// items lists a batch's or transaction's items in request order (a
// batch's tables in name order: JSON objects have no order the SDK keeps).
func items(op string, req map[string]any) []item {
	var out []item
	switch op {
	case "TransactWriteItems", "TransactGetItems":
		for _, ti := range asSlice(req["TransactItems"]) {
			for _, kind := range []string{"Put", "Update", "Delete", "ConditionCheck", "Get"} {
				if m := asMap(asMap(ti)[kind]); m != nil {
					key := asMap(m["Key"])
					if key == nil {
						key = asMap(m["Item"])
					}
					out = append(out, item{table: asString(m["TableName"]), key: key})
				}
			}
		}
	case "BatchWriteItem":
		for _, table := range sortedKeys(asMap(req["RequestItems"])) {
			for _, wr := range asSlice(asMap(req["RequestItems"])[table]) {
				if put := asMap(asMap(wr)["PutRequest"]); put != nil {
					out = append(out, item{table, asMap(put["Item"])})
				}
				if del := asMap(asMap(wr)["DeleteRequest"]); del != nil {
					out = append(out, item{table, asMap(del["Key"])})
				}
			}
		}
	case "BatchGetItem":
		for _, table := range sortedKeys(asMap(req["RequestItems"])) {
			for _, k := range asSlice(asMap(asMap(req["RequestItems"])[table])["Keys"]) {
				out = append(out, item{table, asMap(k)})
			}
		}
	}
	return out
}

// matching returns the positions (in items' order) of the items of req
// that name the key, or [0] for a single-item request or a Query that
// names it; nil when the request does not name it.
func (p *Proxy) matching(op string, req map[string]any) []int {
	if req == nil {
		return nil
	}
	if its := items(op, req); its != nil {
		var out []int
		for i, it := range its {
			if p.names(it.key[p.rule.Attribute]) {
				out = append(out, i)
			}
		}
		return out
	}
	if p.names(asMap(req["Key"])[p.rule.Attribute]) || p.names(asMap(req["Item"])[p.rule.Attribute]) {
		return []int{0}
	}
	for _, v := range asMap(req["ExpressionAttributeValues"]) {
		if p.names(v) {
			return []int{0}
		}
	}
	if cond := asMap(asMap(req["KeyConditions"])[p.rule.Attribute]); cond != nil {
		for _, v := range asSlice(cond["AttributeValueList"]) {
			if p.names(v) {
				return []int{0}
			}
		}
	}
	return nil
}

// names reports whether v is an attribute value equal to the rule's Value.
func (p *Proxy) names(v any) bool {
	for _, s := range asMap(v) {
		if s, ok := s.(string); ok && s == p.rule.Value {
			return true
		}
	}
	return false
}

// refuse writes DynamoDB's throttling error as the service sends it.
func (p *Proxy) refuse(w http.ResponseWriter) {
	// The service model spells the member ThrottlingReasons in
	// ProvisionedThroughputExceededException and RequestLimitExceeded, but
	// throttlingReasons in ThrottlingException, and the SDK reads each
	// spelling only where the model has it.
	member := "ThrottlingReasons"
	if p.rule.ErrorType == "ThrottlingException" {
		member = "throttlingReasons"
	}
	p.writeError(w, p.rule.ErrorType, map[string]any{
		"message": "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.",
		member: []map[string]string{
			{"reason": p.rule.Reason, "resource": p.rule.Resource},
		},
	})
}

// cancelTransaction writes the TransactionCanceledException DynamoDB
// sends when items of a transaction are throttled.
func (p *Proxy) cancelTransaction(w http.ResponseWriter, throttled []int, n int) {
	reasons := make([]map[string]string, n)
	codes := make([]string, n)
	for i := range reasons {
		reasons[i], codes[i] = map[string]string{"Code": "None"}, "None"
	}
	for _, i := range throttled {
		reasons[i] = map[string]string{"Code": "ThrottlingError", "Message": "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly."}
		codes[i] = "ThrottlingError"
	}
	p.writeError(w, "TransactionCanceledException", map[string]any{
		"message":             "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]",
		"CancellationReasons": reasons,
	})
}

func (p *Proxy) writeError(w http.ResponseWriter, errType string, members map[string]any) {
	members["__type"] = "com.amazonaws.dynamodb.v20120810#" + errType
	body, _ := json.Marshal(members)
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("x-amzn-ErrorType", errType)
	w.Header().Set("x-amzn-RequestId", fmt.Sprintf("THROTTLED%08d", p.Throttled()))
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(body)
}

// leaveUnprocessed forwards the batch without the key's items and answers
// DynamoDB Local's response with them added as unprocessed.
//
// Long because BatchGetItem and BatchWriteItem hold their keys in
// different shapes, and each is split here.
func (p *Proxy) leaveUnprocessed(w http.ResponseWriter, r *http.Request, rp *httputil.ReverseProxy, op string, req map[string]any) {
	member := "UnprocessedItems"
	if op == "BatchGetItem" {
		member = "UnprocessedKeys"
	}
	kept, left := map[string]any{}, map[string]any{}
	for table, v := range asMap(req["RequestItems"]) {
		if op == "BatchGetItem" {
			ka := asMap(v)
			var keep, leave []any
			for _, k := range asSlice(ka["Keys"]) {
				if p.names(asMap(k)[p.rule.Attribute]) {
					leave = append(leave, k)
				} else {
					keep = append(keep, k)
				}
			}
			if keep != nil {
				kept[table] = with(ka, "Keys", keep)
			}
			if leave != nil {
				left[table] = with(ka, "Keys", leave)
			}
			continue
		}
		var keep, leave []any
		for _, wr := range asSlice(v) {
			m := asMap(wr)
			key := asMap(asMap(m["PutRequest"])["Item"])
			if key == nil {
				key = asMap(asMap(m["DeleteRequest"])["Key"])
			}
			if p.names(key[p.rule.Attribute]) {
				leave = append(leave, wr)
			} else {
				keep = append(keep, wr)
			}
		}
		if keep != nil {
			kept[table] = keep
		}
		if leave != nil {
			left[table] = leave
		}
	}
	req["RequestItems"] = kept
	body, _ := json.Marshal(req)
	rec := httptest.NewRecorder()
	forward(rp, rec, r, body)
	var resp map[string]any
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &resp) != nil {
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
		return
	}
	resp[member] = left
	out, _ := json.Marshal(resp)
	// The body changed: DynamoDB Local's X-Amz-Crc32 no longer fits it.
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	_, _ = w.Write(out)
}

func with(m map[string]any, k string, v any) map[string]any {
	c := map[string]any{}
	for mk, mv := range m {
		c[mk] = mv
	}
	c[k] = v
	return c
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func asSlice(v any) []any        { s, _ := v.([]any); return s }
func asString(v any) string      { s, _ := v.(string); return s }
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
