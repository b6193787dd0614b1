package templatetest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
	"github.com/hotkeys-dev/hotkeys/redact"
)

// lambdaEnvironment is every environment variable the Lambda reads
// (lambda/main.go, envVars). The template must set exactly these: a variable
// the function ignores is a setting that silently does nothing, and one the
// template leaves out is a setting users cannot change at deploy time.
var lambdaEnvironment = []string{
	"HOTKEYS_WINDOW",
	"HOTKEYS_SHARE_THRESHOLD",
	"HOTKEYS_MIN_WCU_PER_SECOND",
	"HOTKEYS_CRITICAL_WCU_PER_SECOND",
	"HOTKEYS_PARTITION_LIMIT",
	"HOTKEYS_SATURATION_FRACTION",
	"HOTKEYS_SATURATION_SECONDS",
	"HOTKEYS_PARTITION_KEY",
	"HOTKEYS_TOP",
	"HOTKEYS_NAMESPACE",
	"HOTKEYS_METRICS",
	"HOTKEYS_KEY_REDACTION",
	"HOTKEYS_KEY_REDACTION_SECRET_ARN",
	"HOTKEYS_HISTORY_TABLE",
	"HOTKEYS_HISTORY_RETENTION_DAYS",
	"HOTKEYS_HISTORY_WRITE_SHARDS",
	"HOTKEYS_HISTORY_WRITE_SPREAD",
	"HOTKEYS_INDEXES",
	"HOTKEYS_NOTIFY_TOPIC_ARN",
	"HOTKEYS_NOTIFY_MAX_PER_INVOCATION",
}

// pendingLambdaEnvironment lists variables the template sets (and this
// test's list has) before the Lambda's sources read them: none now. The
// test fails once the sources read a pending name, so that the exception is
// removed the moment it is no longer needed, and it never excuses a name
// the template does not set.
var pendingLambdaEnvironment []string

var envName = regexp.MustCompile(`^HOTKEYS_[A-Z0-9_]+$`)

// sourceEnvironment returns the HOTKEYS_ names that appear as string
// literals of their own in the non-test sources of a function's package
// (lambda, lambda/rollup).
func sourceEnvironment(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && envName.MatchString(s) {
					seen[s] = true
				}
			}
			return true
		})
	}
	if len(seen) == 0 {
		t.Fatalf("no HOTKEYS_ variable in %v: the function's sources are missing", files)
	}
	return slices.Sorted(maps.Keys(seen))
}

func functionEnvironment(t *testing.T, s *cfn.Stack) map[string]string {
	t.Helper()
	fn := properties(mustResource(t, s, functionID))
	env, _ := fn["Environment"].(map[string]any)
	vars, _ := env["Variables"].(map[string]any)
	out := map[string]string{}
	for k, v := range vars {
		out[k] = cfn.ScalarString(v)
	}
	return out
}

// TestTemplateEnvironmentIsWhatTheLambdaReads checks the names, and that the
// values a deployment gets parse and agree with the code's defaults.
func TestTemplateEnvironmentIsWhatTheLambdaReads(t *testing.T) {
	want := slices.Sorted(slices.Values(lambdaEnvironment))
	read := sourceEnvironment(t, "lambda")
	for _, p := range pendingLambdaEnvironment {
		if slices.Contains(read, p) {
			t.Errorf("the Lambda's sources now read %s: remove it from pendingLambdaEnvironment", p)
		}
		if !slices.Contains(want, p) {
			t.Errorf("pending %s is not in lambdaEnvironment", p)
		}
	}
	if got := slices.Concat(read, pendingLambdaEnvironment); !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Errorf("the Lambda's sources read %v (plus pending %v); this test's list is %v", read, pendingLambdaEnvironment, want)
	}

	tmpl := readTemplate(t)
	env := functionEnvironment(t, deploy(t, tmpl, nil))
	var set []string
	for k := range env {
		if strings.HasPrefix(k, "HOTKEYS_") {
			set = append(set, k)
		}
	}
	slices.Sort(set)
	if !slices.Equal(set, want) {
		t.Errorf("template sets %v, the Lambda reads %v", set, want)
	}

	// With every parameter at its default, a deployment behaves like the
	// code's documented defaults.
	dcfg, acfg, pk := configFromEnvironment(t, env)
	if env["HOTKEYS_KEY_REDACTION"] != string(redact.None) || env["HOTKEYS_KEY_REDACTION_SECRET_ARN"] != "" {
		t.Errorf("default deployment redacts keys: %q, secret %q", env["HOTKEYS_KEY_REDACTION"], env["HOTKEYS_KEY_REDACTION_SECRET_ARN"])
	}
	dd, ad := detector.DefaultConfig(), alert.DefaultConfig()
	if dcfg.Window != dd.Window || dcfg.ShareThreshold != dd.ShareThreshold || dcfg.MinWCUPerSecond != dd.MinWCUPerSecond ||
		dcfg.CriticalWCUPerSecond != dd.CriticalWCUPerSecond || dcfg.PartitionLimit != dd.PartitionLimit ||
		dcfg.SaturationFraction != dd.SaturationFraction || dcfg.SaturationSeconds != dd.SaturationSeconds ||
		dcfg.Top != dd.Top || dcfg.Redactor != nil {
		t.Errorf("default deployment gives detector config %+v, the code's default is %+v", dcfg, dd)
	}
	// The one deliberate difference: the template publishes with EMF by
	// default, by cost (docs/deploy.md, Cost), where the package's default
	// is the API.
	if acfg.Namespace != ad.Namespace || acfg.Mode != alert.ModeEMF || acfg.Top != ad.Top {
		t.Errorf("default deployment gives alert config %+v, want the code's default %+v in mode emf", acfg, ad)
	}
	if pk != "" {
		t.Errorf("HOTKEYS_PARTITION_KEY = %q by default, want empty (looked up)", pk)
	}
	// Index analysis is on by default when the table has indexes, as the
	// CLI's --indexes auto.
	if got := env["HOTKEYS_INDEXES"]; got != "auto" {
		t.Errorf("HOTKEYS_INDEXES = %q by default, want auto", got)
	}

	// At both ends of every numeric parameter's range at once, the
	// function itself starts. (Not with KeyRedaction=hash: the function
	// would read the secret at cold start; TestTemplateKeyRedactionSecret
	// covers that wiring.)
	params := tmpl["Parameters"].(map[string]any)
	for _, end := range []string{"lowest", "highest"} {
		values := map[string]string{"PartitionKeyName": "pk", "MetricsMode": "both"}
		for _, p := range numericParameters {
			x := p.hi
			if end == "lowest" {
				x = p.lo
				if p.loOpen {
					x += math.Pow10(-maxDecimals)
				}
			}
			values[p.name] = strconv.FormatFloat(x, 'f', -1, 64)
		}
		env := functionEnvironment(t, deploy(t, tmpl, values))
		starts, line, err := functionStarts(env)
		if err != nil {
			t.Fatal(err)
		}
		if !starts {
			t.Errorf("every number at its %s: %v: the function refuses %s", end, values, line)
		}
	}
	for _, v := range params["MetricsMode"].(map[string]any)["AllowedValues"].([]any) {
		if _, err := alert.ParseMode(cfn.ScalarString(v)); err != nil {
			t.Errorf("MetricsMode allows %v: %v", v, err)
		}
	}
	// The CLI's --indexes spelling, whole.
	if got := params["IndexAnalysis"].(map[string]any)["AllowedValues"]; !slices.Equal(stringsOf(got), []string{"auto", "on", "off"}) {
		t.Errorf("IndexAnalysis allows %v, want auto, on and off as --indexes", got)
	}
	// The function offers none and hash; hash-unsalted is the CLI's alone.
	for _, v := range params["KeyRedaction"].(map[string]any)["AllowedValues"].([]any) {
		if m, err := redact.ParseMode(cfn.ScalarString(v)); err != nil || m == redact.HashUnsalted {
			t.Errorf("KeyRedaction allows %v (%v): want none or hash", v, err)
		}
	}
}

// configFromEnvironment reads the function's variables into the configs the
// way docs/lambda.md ("Configuration") documents them (it is no copy of lambda/main.go's reader,
// which package main keeps to itself; the Lambda's own tests cover that).
func configFromEnvironment(t *testing.T, env map[string]string) (detector.Config, alert.Config, string) {
	t.Helper()
	d, a := detector.DefaultConfig(), alert.DefaultConfig()
	var err error
	if d.Window, err = time.ParseDuration(env["HOTKEYS_WINDOW"]); err != nil {
		t.Fatalf("HOTKEYS_WINDOW: %v", err)
	}
	for name, dst := range map[string]*float64{
		"HOTKEYS_SHARE_THRESHOLD":         &d.ShareThreshold,
		"HOTKEYS_MIN_WCU_PER_SECOND":      &d.MinWCUPerSecond,
		"HOTKEYS_CRITICAL_WCU_PER_SECOND": &d.CriticalWCUPerSecond,
		"HOTKEYS_PARTITION_LIMIT":         &d.PartitionLimit,
		"HOTKEYS_SATURATION_FRACTION":     &d.SaturationFraction,
	} {
		if *dst, err = strconv.ParseFloat(env[name], 64); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if d.Top, err = strconv.Atoi(env["HOTKEYS_TOP"]); err != nil {
		t.Fatalf("HOTKEYS_TOP: %v", err)
	}
	if d.SaturationSeconds, err = strconv.Atoi(env["HOTKEYS_SATURATION_SECONDS"]); err != nil {
		t.Fatalf("HOTKEYS_SATURATION_SECONDS: %v", err)
	}
	a.Top = d.Top
	if _, err = redact.ParseMode(env["HOTKEYS_KEY_REDACTION"]); err != nil {
		t.Fatal(err)
	}
	a.Namespace = env["HOTKEYS_NAMESPACE"]
	if a.Mode, err = alert.ParseMode(env["HOTKEYS_METRICS"]); err != nil {
		t.Fatal(err)
	}
	return d, a, env["HOTKEYS_PARTITION_KEY"]
}

// TestTemplateParameters checks that every parameter is used, that its
// default meets its own constraints, and that the StreamArn pattern lets
// real stream ARNs through, turns the rest away, and yields the table name.
func TestTemplateParameters(t *testing.T) {
	tmpl := readTemplate(t)
	text, err := os.ReadFile(templateFile)
	if err != nil {
		t.Fatal(err)
	}
	params := tmpl["Parameters"].(map[string]any)
	for name, p := range params {
		p := p.(map[string]any)
		uses := regexp.MustCompile(`!Ref ` + name + `\b|\$\{` + name + `\}|Ref: ` + name + `\b`)
		if !uses.Match(text) {
			t.Errorf("parameter %s is never used", name)
		}
		d, ok := p["Default"]
		if !ok {
			if name != "StreamArn" {
				t.Errorf("parameter %s has no default", name)
			}
			continue
		}
		def := cfn.ScalarString(d)
		if allowed, ok := p["AllowedValues"].([]any); ok && !slices.ContainsFunc(allowed, func(v any) bool { return cfn.ScalarString(v) == def }) {
			t.Errorf("parameter %s: default %q is not among %v", name, def, allowed)
		}
		if pat, ok := p["AllowedPattern"].(string); ok && !matcher(t, name, pat).MatchString(def) {
			t.Errorf("parameter %s: default %q does not match %s", name, def, pat)
		}
		// A Number's bounds: template_numbers_test.go wants no Number.
		for _, k := range []string{"MinValue", "MaxValue"} {
			if _, ok := p[k]; ok {
				t.Errorf("parameter %s has %s, which only a Number has", name, k)
			}
		}
	}
	// A pattern alone makes CloudFormation print the regular expression to
	// whoever mistyped; say what is wanted instead.
	for name, p := range params {
		p := p.(map[string]any)
		if _, ok := p["AllowedPattern"]; ok && p["ConstraintDescription"] == nil {
			t.Errorf("parameter %s has an AllowedPattern and no ConstraintDescription", name)
		}
	}
	// No parameter carries a secret: NoEcho hides a value from the console
	// but not from the function's configuration or the stack's history.
	for name, p := range params {
		if p.(map[string]any)["NoEcho"] != nil || strings.Contains(strings.ToLower(name), "salt") {
			t.Errorf("parameter %s looks like a secret; secrets belong in Secrets Manager", name)
		}
	}

	// CloudFormation matches AllowedPattern against the whole value.
	pattern := regexp.MustCompile("^(?:" + params["StreamArn"].(map[string]any)["AllowedPattern"].(string) + ")$")
	for arn, table := range map[string]string{
		testStreamArn: testTable,
		"arn:aws:dynamodb:us-east-1:000000000000:table/my.table-2_b/stream/2019-10-22T18:02:01.576":   "my.table-2_b",
		"arn:aws-cn:dynamodb:cn-north-1:123456789012:table/Orders/stream/2026-01-01T00:00:00.000":     "Orders",
		"arn:aws-us-gov:dynamodb:us-gov-west-1:123456789012:table/abc/stream/2026-01-01T00:00:00.000": "abc",
	} {
		if !pattern.MatchString(arn) {
			t.Errorf("StreamArn pattern rejects %s", arn)
			continue
		}
		s := deploy(t, tmpl, map[string]string{"StreamArn": arn})
		out, err := s.Eval(tmpl["Outputs"].(map[string]any)["TableName"])
		if err != nil {
			t.Fatal(err)
		}
		if got := out.(map[string]any)["Value"]; got != table {
			t.Errorf("table of %s = %v, want %s", arn, got, table)
		}
	}
	for _, arn := range []string{
		"arn:aws:dynamodb:eu-west-1:123456789012:table/Orders",                                          // a table, not its stream
		"arn:aws:dynamodb:eu-west-1:123456789012:table/Orders/stream/",                                  // no label
		"arn:aws:kinesis:eu-west-1:123456789012:stream/Orders",                                          // another service
		"arn:aws:dynamodb:eu-west-1:12345:table/Orders/stream/2026-11-22T10:00:00.000",                  // short account
		"arn:aws:dynamodb:eu-west-1:123456789012:table/ab/stream/2026-11-22T10:00:00.000",               // table names have 3+ characters
		"arn:aws:dynamodb:eu-west-1:123456789012:table/Orders/index/gsi/stream/2026-11-22T10:00:00.000", // extra path
		" " + testStreamArn, // pasted with a space
	} {
		if pattern.MatchString(arn) {
			t.Errorf("StreamArn pattern accepts %q", arn)
		}
	}
}

func stringsOf(v any) []string {
	list, _ := v.([]any)
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = cfn.ScalarString(x)
	}
	return out
}
