package fakesecretsmanager

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
	"github.com/aws/smithy-go"
)

const arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:hotkeys-key-redaction-AbCdEf"

// TestRealClient drives the fake with aws-sdk-go-v2's own client, so that
// the wire format is the SDK's, not this package's idea of it.
func TestRealClient(t *testing.T) {
	s := New()
	defer s.Close()
	s.PutString(arn, "correct horse battery staple")
	other := strings.Replace(arn, "hotkeys-key-redaction-AbCdEf", "raw-XyZ123", 1)
	s.PutBinary(other, []byte{0, 1, 2, 255})
	c := s.Client()
	ctx := context.Background()

	for _, id := range []string{arn, "hotkeys-key-redaction"} {
		out, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(id)})
		if err != nil {
			t.Fatalf("GetSecretValue(%s): %v", id, err)
		}
		if aws.ToString(out.SecretString) != "correct horse battery staple" || aws.ToString(out.ARN) != arn ||
			aws.ToString(out.Name) != "hotkeys-key-redaction" || !slices.Equal(out.VersionStages, []string{"AWSCURRENT"}) {
			t.Errorf("GetSecretValue(%s) = %+v", id, out)
		}
	}
	out, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(other)})
	if err != nil || out.SecretString != nil || !slices.Equal(out.SecretBinary, []byte{0, 1, 2, 255}) {
		t.Errorf("binary secret: %+v, %v", out, err)
	}

	_, err = c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(arn + "x")})
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Errorf("missing secret: %v, want the modeled ResourceNotFoundException", err)
	}

	s.Deny(arn)
	_, err = c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(arn)})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "AccessDeniedException" || !strings.Contains(ae.ErrorMessage(), "secretsmanager:GetSecretValue") {
		t.Errorf("denied secret: %v, want AccessDeniedException naming the action", err)
	}
	if got := s.Requests(); len(got) != 5 {
		t.Errorf("%d requests recorded, want 5: %v", len(got), got)
	}
	if r := s.Rejected(); len(r) != 0 {
		t.Errorf("the SDK's own requests were rejected: %v", r)
	}
}

// TestRejectsWhatTheServiceWould: requests that are not awsJson1_1
// GetSecretValue, or not signed, are turned away and recorded.
func TestRejectsWhatTheServiceWould(t *testing.T) {
	s := New()
	defer s.Close()
	post := func(target, contentType, auth, body string) int {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", target)
		req.Header.Set("Content-Type", contentType)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	const sig = "AWS4-HMAC-SHA256 Credential=test/20261123/us-east-1/secretsmanager/aws4_request, SignedHeaders=host, Signature=00"
	for _, tc := range []struct{ target, ct, auth, body string }{
		{"secretsmanager.ListSecrets", ContentType, sig, `{}`},
		{Target, "application/json", sig, `{"SecretId":"x"}`},
		{Target, ContentType, "", `{"SecretId":"x"}`},
		{Target, ContentType, sig, `{}`},
	} {
		if code := post(tc.target, tc.ct, tc.auth, tc.body); code != http.StatusBadRequest {
			t.Errorf("%+v: status %d, want 400", tc, code)
		}
	}
	if n := len(s.Rejected()); n != 4 {
		t.Errorf("%d rejections recorded, want 4: %v", n, s.Rejected())
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d malformed requests counted as GetSecretValue", n)
	}
}
