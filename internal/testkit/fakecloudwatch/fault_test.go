package fakecloudwatch

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fault"
)

// TestFaults: each fault reaches the SDK's own client as CloudWatch's
// would: a hang ends only when the client's context does, a 500 and a
// throttle are retried, a denial is not, and a slow answer is served
// whole, late; only that one stores the datum.
func TestFaults(t *testing.T) {
	for _, tc := range []struct {
		mode     fault.Mode
		code     string
		attempts int
	}{
		{fault.Hang, "", 1},
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
			ctx, cancel := fault.CallContext(tc.mode)
			defer cancel()
			began := time.Now()
			_, err := s.Client(FastRetries(3)).PutMetricData(ctx, &cloudwatch.PutMetricDataInput{
				Namespace: aws.String("HotKeyDetector"), MetricData: []types.MetricDatum{datum("WriteCapacityUnits", 5, now, "TableName", "Orders")}})
			fault.CheckCall(t, tc.mode, err, tc.code, time.Since(began), delay)
			if stored := len(s.Data()); stored != map[bool]int{true: 1}[tc.mode == fault.Slow] {
				t.Errorf("%d data accepted under %s", stored, tc.mode)
			}
			if s.Attempts() != tc.attempts || s.Faulted() != tc.attempts {
				t.Errorf("%d attempts, %d faulted; want %d", s.Attempts(), s.Faulted(), tc.attempts)
			}
		})
	}
}
