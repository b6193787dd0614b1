package main

import (
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/keyschema"
	"github.com/hotkeys-dev/hotkeys/record"
)

// The function declares what it needs of other packages as interfaces of
// its own, so that its tests can stand in for AWS; the compiler holds the
// real parts to them here.
var (
	// lambda.Start hands Invoke the raw payload only if the handler is a
	// lambda.Handler; any other value it takes for a function, and every
	// invocation fails.
	_ lambda.Handler = (*handler)(nil)

	_ schemaLookup   = (*keyschema.Cache)(nil)
	_ publisher      = (*alert.Publisher)(nil)
	_ feeder         = (*detector.Feed)(nil)
	_ tableFinder    = (*record.Decoder)(nil)
	_ secretGetter   = (*secretsmanager.Client)(nil)
	_ topicPublisher = (*sns.Client)(nil)

	// The two sinks an invocation counts into.
	_ sink             = (*plainSink)(nil)
	_ sink             = (*tumblingSink)(nil)
	_ detector.Deduper = (*plainSink)(nil)
	_ detector.Deduper = (*tumblingSink)(nil)
)
