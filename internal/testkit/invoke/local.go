package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"strings"
)

// noAccount answers every AWS request that reaches it as AWS answers a
// role without the permission, in the JSON protocols' error shape
// (DynamoDB's awsJson1_0, Secrets Manager's awsJson1_1): AccessDeniedException,
// which the SDK does not retry, so the function learns at once and its log
// says why.
type noAccount struct {
	srv *http.Server
	ln  net.Listener
	URL string
}

func startNoAccount() (*noAccount, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	n := &noAccount{ln: ln, URL: "http://" + ln.Addr().String()}
	n.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		what := r.Header.Get("X-Amz-Target") // Service_Version.Operation
		if what == "" {
			what = r.Method + " " + r.URL.Path
		}
		body, _ := json.Marshal(map[string]string{
			"__type":  "AccessDeniedException",
			"message": "make invoke runs without an AWS account: " + what + " was not sent to AWS",
		})
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amzn-ErrorType", "AccessDeniedException")
		w.WriteHeader(http.StatusBadRequest)
		w.Write(body)
	})}
	go n.srv.Serve(ln)
	return n, nil
}

func (n *noAccount) Close() { n.srv.Close() }

// randomSecret makes a key-redaction secret for one invoke.
func randomSecret() string {
	var b [32]byte
	rand.Read(b[:])
	return strings.TrimRight(base64.URLEncoding.EncodeToString(b[:]), "=")
}
