package fakesecretsmanager

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fault"
)

// TestFaults: each fault reaches the SDK's own client as Secrets
// Manager's would: a hang ends only when the client's context does, a 500
// and a throttle are retried, a denial is not, and a slow answer gives the
// secret, late.
func TestFaults(t *testing.T) {
	for _, tc := range []struct {
		mode     fault.Mode
		code     string
		attempts int
	}{
		{fault.Hang, "", 1},
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
			ctx, cancel := fault.CallContext(tc.mode)
			defer cancel()
			c := s.Client(func(o *secretsmanager.Options) {
				o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
					so.MaxAttempts, so.RateLimiter = 3, ratelimit.None
					so.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
				})
			})
			began := time.Now()
			out, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(arn)})
			fault.CheckCall(t, tc.mode, err, tc.code, time.Since(began), delay)
			if tc.mode == fault.Slow && (out == nil || aws.ToString(out.SecretString) != "correct horse battery staple") {
				t.Errorf("slow: %+v, want the secret", out)
			}
			if s.Faulted() != tc.attempts {
				t.Errorf("%d faulted requests, want %d", s.Faulted(), tc.attempts)
			}
		})
	}
}
