package store

import (
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// TestClientOptionsRetriesACutBody: a Query response whose body the
// connection cuts short (its Content-Length promised more) fails while
// ClientOptions reads it whole, as a transport error the SDK retries; the
// retry's whole page is decoded.
func TestClientOptionsRetriesACutBody(t *testing.T) {
	const page = `{"Items":[{"day":{"S":"2026-11-22#0"},"window":{"S":"000000000060#T#shardId-1"}}],"Count":1,"ScannedCount":1}`
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		if calls.Add(1) == 1 {
			w.Header().Set("Content-Length", strconv.Itoa(len(page)))
			w.Write([]byte(page[:len(page)/2]))
			panic(http.ErrAbortHandler) // the connection ends mid-body
		}
		w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(page))), 10))
		w.Write([]byte(page))
	}))
	defer srv.Close()
	api := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(srv.URL), Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("k", "s", "")}, ClientOptions)
	in := &dynamodb.QueryInput{TableName: aws.String("H"), KeyConditionExpression: aws.String("#d = :d"),
		ExpressionAttributeNames: map[string]string{"#d": AttrDay}}
	out, err := api.Query(context.Background(), in)
	if err != nil || out.Count != 1 || len(out.Items) != 1 || calls.Load() != 2 {
		t.Fatalf("Query: %v, %+v after %d calls; want the page on the second", err, out, calls.Load())
	}
}

// TestWholeBodies: Do returns only once the whole body has been read (the
// server has written all 32 MB, more than the connection buffers), hands
// it on intact, and turns a body cut short into an error of its own, not a
// response for the SDK to decode.
func TestWholeBodies(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 2<<20)
	var written atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		if r.URL.Path == "/cut" {
			w.Write(body[:len(body)/2])
			panic(http.ErrAbortHandler)
		}
		w.Write(body)
		written.Store(true)
	}))
	defer srv.Close()
	c := wholeBodies{srv.Client()}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/whole", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if !written.Load() {
		t.Error("Do returned before the server had written the whole body")
	}
	got, err := io.ReadAll(resp.Body)
	if err != nil || !bytes.Equal(got, body) {
		t.Errorf("body of %d bytes, %v; want the %d written", len(got), err, len(body))
	}
	req, _ = http.NewRequest(http.MethodGet, srv.URL+"/cut", nil)
	resp, err = c.Do(req)
	if resp != nil {
		resp.Body.Close()
	}
	if err == nil || resp != nil || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a cut body: %v, %v; want no response and io.ErrUnexpectedEOF", resp, err)
	}
}
