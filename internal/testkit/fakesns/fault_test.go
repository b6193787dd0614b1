package fakesns

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/smithy-go"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fault"
)

// TestFaults: each fault reaches the SDK's own client as SNS's would: a
// hang ends only when the client's context does, a 500, a throttle and a
// denial come back with SNS's codes (the client of Client makes one
// attempt), and a slow answer publishes the message, late.
func TestFaults(t *testing.T) {
	for _, tc := range []struct {
		mode fault.Mode
		code string // the error's code; "" for success, "deadline" for the context's end
	}{
		{fault.Hang, "deadline"},
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
			ctx, cancel := context.WithTimeout(context.Background(), map[bool]time.Duration{true: 100 * time.Millisecond, false: time.Minute}[tc.mode == fault.Hang])
			defer cancel()
			began := time.Now()
			_, err := s.Client().Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m")})
			var ae smithy.APIError
			switch {
			case tc.code == "" && (err != nil || len(s.Published()) != 1 || time.Since(began) < delay):
				t.Errorf("%v after %s, %d published; want the message published after at least %s", err, time.Since(began), len(s.Published()), delay)
			case tc.code == "deadline" && !errors.Is(err, context.DeadlineExceeded):
				t.Errorf("%v, want the client's deadline", err)
			case tc.code != "" && tc.code != "deadline" && (!errors.As(err, &ae) || ae.ErrorCode() != tc.code):
				t.Errorf("%v, want %s", err, tc.code)
			case tc.code != "" && len(s.Published()) != 0:
				t.Errorf("%d published under %s", len(s.Published()), tc.mode)
			}
			if s.Attempts() != 1 || s.Faulted() != 1 {
				t.Errorf("%d attempts, %d faulted; want 1", s.Attempts(), s.Faulted())
			}
		})
	}
}
