package main

import "github.com/aws/aws-lambda-go/lambda"

// lambda.Start hands Invoke the raw payload only if the handler is a
// lambda.Handler; any other value it takes for a function, and every
// invocation fails.
var _ lambda.Handler = (*handler)(nil)
