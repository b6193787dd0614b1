package fakesns

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fault"
)

// TestFaults: each fault reaches the SDK's own client as SNS's would: a
// hang ends only when the client's context does, a 500, a throttle and a
// denial come back with SNS's codes (the client of Client makes one
// attempt), and a slow answer publishes the message, late; only that one
// publishes it.
func TestFaults(t *testing.T) {
	for _, tc := range fault.Cases("InternalError", "Throttled", "AuthorizationError", 1) {
		t.Run(tc.Mode.String(), func(t *testing.T) {
			t.Parallel()
			s := New()
			defer s.Close()
			const delay = 50 * time.Millisecond
			s.SetFault(tc.Mode, delay)
			ctx, cancel := fault.CallContext(tc.Mode, s.Faulted)
			defer cancel()
			began := time.Now()
			_, err := s.Client().Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m")})
			fault.CheckCall(t, tc.Mode, err, tc.Code, time.Since(began), delay)
			if sent := len(s.Published()); sent != map[bool]int{true: 1}[tc.Mode == fault.Slow] {
				t.Errorf("%d published under %s", sent, tc.Mode)
			}
			if s.Attempts() != tc.Attempts || s.Faulted() != tc.Attempts {
				t.Errorf("%d attempts, %d faulted; want %d", s.Attempts(), s.Faulted(), tc.Attempts)
			}
		})
	}
}
