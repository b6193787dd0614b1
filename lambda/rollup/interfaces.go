package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/hotkeys-dev/hotkeys/history/store"
)

var (
	// lambda.Start hands Invoke the raw payload only if the handler is a
	// lambda.Handler; any other value it takes for a function, and every
	// invocation fails.
	_ lambda.Handler = (*handler)(nil)

	// The history table's client, each call under its own deadline.
	_ store.API = bounded{}
)
