package fakecloudwatch

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/smithy-go"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fault"
)

// TestFaults: each fault reaches the SDK's own client as CloudWatch's
// would: a hang ends only when the client's context does, a 500 and a
// throttle are retried, a denial is not, and a slow answer is served
// whole, late.
func TestFaults(t *testing.T) {
	for _, tc := range []struct {
		mode     fault.Mode
		code     string // the error's code; "" for success, "deadline" for the context's end
		attempts int
	}{
		{fault.Hang, "deadline", 1},
		{fault.ServerError, "InternalServiceFault", 3},
		{fault.Throttle, "Throttling", 3},
		{fault.Denied, "AccessDenied", 1},
		{fault.Slow, "", 1},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			t.Parallel()
			s := newServer()
			defer s.Close()
			const delay = 50 * time.Millisecond
			s.SetFault(tc.mode, delay)
			ctx, cancel := context.WithTimeout(context.Background(), map[bool]time.Duration{true: 100 * time.Millisecond, false: time.Minute}[tc.mode == fault.Hang])
			defer cancel()
			began := time.Now()
			_, err := s.Client(FastRetries(3)).PutMetricData(ctx, &cloudwatch.PutMetricDataInput{
				Namespace: aws.String("HotKeyDetector"), MetricData: []types.MetricDatum{datum("WriteCapacityUnits", 5, now, "TableName", "Orders")}})
			var ae smithy.APIError
			switch {
			case tc.code == "" && (err != nil || len(s.Data()) != 1 || time.Since(began) < delay):
				t.Errorf("%v after %s, %d data; want the datum accepted after at least %s", err, time.Since(began), len(s.Data()), delay)
			case tc.code == "deadline" && !errors.Is(err, context.DeadlineExceeded):
				t.Errorf("%v, want the client's deadline", err)
			case tc.code != "" && tc.code != "deadline" && (!errors.As(err, &ae) || ae.ErrorCode() != tc.code):
				t.Errorf("%v, want %s", err, tc.code)
			case tc.code != "" && len(s.Data()) != 0:
				t.Errorf("%d data accepted under %s", len(s.Data()), tc.mode)
			}
			if s.Attempts() != tc.attempts || s.Faulted() != tc.attempts {
				t.Errorf("%d attempts, %d faulted; want %d", s.Attempts(), s.Faulted(), tc.attempts)
			}
		})
	}
}
