// Package faultproxy is test support: a reverse proxy in front of DynamoDB
// Local that answers a deterministic share of one partition key's requests
// with the throttling error DynamoDB itself sends (HTTP 400, the
// x-amzn-ErrorType header and a JSON 1.0 body with __type, message and
// ThrottlingReasons), because DynamoDB Local never throttles.
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
	"sync"
	"testing"
)

// Rule says which requests to throttle: of every Period requests that
// name partition key Value in attribute Attribute (in Key or Item), the
// first Throttle are refused. With Period 3 and Throttle 2 and the SDK's
// default 3 attempts, every call on the key is throttled exactly twice and
// then succeeds.
type Rule struct {
	Attribute, Value string
	Period, Throttle int
	// ErrorType is the exception's name; ProvisionedThroughputExceededException
	// by default.
	ErrorType string
	// Reason and Resource fill ThrottlingReasons, e.g.
	// TableReadKeyRangeThroughputExceeded and the table's ARN.
	Reason, Resource string
}

// Proxy is a running fault-injecting proxy.
type Proxy struct {
	URL string

	rule  Rule
	mu    sync.Mutex
	seen  int // requests naming the key
	count int // of which throttled
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
	p := &Proxy{rule: rule}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if p.throttle(body) {
			p.refuse(w)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// Throttled returns how many requests the proxy has refused.
func (p *Proxy) Throttled() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.count
}

func (p *Proxy) throttle(body []byte) bool {
	var req struct {
		Key, Item map[string]map[string]any
	}
	if json.Unmarshal(body, &req) != nil {
		return false
	}
	match := func(m map[string]map[string]any) bool {
		for _, v := range m[p.rule.Attribute] {
			if s, ok := v.(string); ok && s == p.rule.Value {
				return true
			}
		}
		return false
	}
	if !match(req.Key) && !match(req.Item) {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	refuse := p.seen%p.rule.Period < p.rule.Throttle
	p.seen++
	if refuse {
		p.count++
	}
	return refuse
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
	body, _ := json.Marshal(map[string]any{
		"__type":  "com.amazonaws.dynamodb.v20120810#" + p.rule.ErrorType,
		"message": "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.",
		member: []map[string]string{
			{"reason": p.rule.Reason, "resource": p.rule.Resource},
		},
	})
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("x-amzn-ErrorType", p.rule.ErrorType)
	w.Header().Set("x-amzn-RequestId", fmt.Sprintf("THROTTLED%08d", p.Throttled()))
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(body)
}
