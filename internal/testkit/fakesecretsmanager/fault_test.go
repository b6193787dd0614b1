package fakesecretsmanager

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fault"
)

// TestFaults: each fault reaches the SDK's own client as Secrets
// Manager's would: a hang ends only when the client's context does, a 500
// and a throttle are retried, a denial is not, and a slow answer gives the
// secret, late.
func TestFaults(t *testing.T) {
	for _, tc := range []struct {
		mode     fault.Mode
		code     string // the error's code; "" for success, "deadline" for the context's end
		attempts int
	}{
		{fault.Hang, "deadline", 1},
		{fault.ServerError, "InternalServiceError", 3},
		{fault.Throttle, "ThrottlingException", 3},
		{fault.Denied, "AccessDeniedException", 1},
		{fault.Slow, "", 1},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			t.Parallel()
			s := New()
			defer s.Close()
			s.PutString(arn, "correct horse battery staple")
			const delay = 50 * time.Millisecond
			s.SetFault(tc.mode, delay)
			ctx, cancel := context.WithTimeout(context.Background(), map[bool]time.Duration{true: 100 * time.Millisecond, false: time.Minute}[tc.mode == fault.Hang])
			defer cancel()
			c := s.Client(func(o *secretsmanager.Options) {
				o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
					so.MaxAttempts, so.RateLimiter = 3, ratelimit.None
					so.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
				})
			})
			began := time.Now()
			out, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(arn)})
			var ae smithy.APIError
			switch {
			case tc.code == "" && (err != nil || aws.ToString(out.SecretString) != "correct horse battery staple" || time.Since(began) < delay):
				t.Errorf("%v after %s; want the secret after at least %s", err, time.Since(began), delay)
			case tc.code == "deadline" && !errors.Is(err, context.DeadlineExceeded):
				t.Errorf("%v, want the client's deadline", err)
			case tc.code != "" && tc.code != "deadline" && (!errors.As(err, &ae) || ae.ErrorCode() != tc.code):
				t.Errorf("%v, want %s", err, tc.code)
			}
			if s.Faulted() != tc.attempts {
				t.Errorf("%d faulted requests, want %d", s.Faulted(), tc.attempts)
			}
		})
	}
}
