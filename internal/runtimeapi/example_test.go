package runtimeapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/runtimeapi"
)

// A runtime asks for the next event and posts its response. In a test the
// runtime is the function's own bootstrap, started with
// AWS_LAMBDA_RUNTIME_API=s.Addr(); here it is a few lines of HTTP.
func Example() {
	s := runtimeapi.New()
	defer s.Close()

	go func() {
		base := "http://" + s.Addr() + "/2018-06-01/runtime/invocation/"
		resp, err := http.Get(base + "next")
		if err != nil {
			return
		}
		event, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		id := resp.Header.Get(runtimeapi.HeaderRequestID)
		r, err := http.Post(base+id+"/response", "application/json", bytes.NewReader(bytes.ToUpper(event)))
		if err == nil {
			r.Body.Close()
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, fnErr, err := s.Invoke(ctx, []byte(`{"hello":"world"}`))
	fmt.Println(string(resp), fnErr == nil, err)
	// Output: {"HELLO":"WORLD"} true <nil>
}
