// Package templatetest holds the tests of template.yaml, the AWS SAM
// template users deploy. They check each resource, as CloudFormation would
// deploy it, against the resource schemas that goformation embeds
// (schema_test.go), plus stricter checks where those schemas are loose;
// that its alarms and dashboard read metrics the alert package really
// publishes; and that its IAM, event source mapping and environment keep
// the guarantees docs/deploy.md promises. The SAM CLI is not needed:
// internal/testkit/cfn parses the template and evaluates its intrinsic
// functions.
//
// The package holds tests only: it is test support, so it lives under
// internal/testkit/ and nothing imports it.
package templatetest
