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
	for _, tc := range []struct {
		mode fault.Mode
		code string
	}{
		{fault.Hang, ""},
		{fault.ServerError, "InternalError"},
		{fault.Throttle, "Throttled"},
		{fault.Denied, "AuthorizationError"},
		{fault.Slow, ""},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			t.Parallel()
			s := New()
			defer s.Close()
			const delay = 50 * time.Millisecond
			s.SetFault(tc.mode, delay)
			ctx, cancel := fault.CallContext(tc.mode)
			defer cancel()
			began := time.Now()
			_, err := s.Client().Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m")})
			fault.CheckCall(t, tc.mode, err, tc.code, time.Since(began), delay)
			if sent := len(s.Published()); sent != map[bool]int{true: 1}[tc.mode == fault.Slow] {
				t.Errorf("%d published under %s", sent, tc.mode)
			}
			if s.Attempts() != 1 || s.Faulted() != 1 {
				t.Errorf("%d attempts, %d faulted; want 1", s.Attempts(), s.Faulted())
			}
		})
	}
}
