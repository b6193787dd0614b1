// This file is not part of the function. lambda/rie_test.go builds a second
// bootstrap with it, through go build -overlay, which adds it to package
// main and has main.go start withFaults(h) instead of h, to test what the
// Lambda Runtime Interface Emulator makes of a function that panics, exits
// or never answers. An event that is exactly one of the JSON strings below
// triggers its fault; every other event goes to the function as deployed.

package main

import (
	"context"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
)

type faulty struct{ fn lambda.Handler }

func withFaults(fn lambda.Handler) lambda.Handler { return faulty{fn} }

func (f faulty) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	switch string(payload) {
	case `"hotkeys-test-fault: panic"`:
		panic("hotkeys test fault: a bug of ours")
	case `"hotkeys-test-fault: exit"`:
		os.Exit(3)
	case `"hotkeys-test-fault: hang"`:
		time.Sleep(24 * time.Hour) // past any deadline (a timer, so Go sees no deadlock)
	}
	return f.fn.Invoke(ctx, payload)
}
