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
	for _, tc := range fault.Cases("InternalServiceFault", "Throttling", "AccessDenied", 3) {
		t.Run(tc.Mode.String(), func(t *testing.T) {
			t.Parallel()
			s := newServer()
			defer s.Close()
			const delay = 50 * time.Millisecond
			s.SetFault(tc.Mode, delay)
			ctx, cancel := fault.CallContext(tc.Mode, s.Faulted)
			defer cancel()
			began := time.Now()
			_, err := s.Client(FastRetries(3)).PutMetricData(ctx, &cloudwatch.PutMetricDataInput{
				Namespace: aws.String("HotKeyDetector"), MetricData: []types.MetricDatum{datum("WriteCapacityUnits", 5, now, "TableName", "Orders")}})
			fault.CheckCall(t, tc.Mode, err, tc.Code, time.Since(began), delay)
			if stored := len(s.Data()); stored != map[bool]int{true: 1}[tc.Mode == fault.Slow] {
				t.Errorf("%d data accepted under %s", stored, tc.Mode)
			}
			if s.Attempts() != tc.Attempts || s.Faulted() != tc.Attempts {
				t.Errorf("%d attempts, %d faulted; want %d", s.Attempts(), s.Faulted(), tc.Attempts)
			}
		})
	}
}
