package templatetest

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
)

// numericParameter is a template parameter that carries a number: a String
// with an AllowedPattern, since a Number takes any integer or float
// CloudFormation can read (60.5 for a whole number, .5 or 0800 for a value
// written into the dashboard's JSON), and its value reaches every property
// as a string anyway.
type numericParameter struct {
	name    string
	integer bool    // a whole number, written without a point
	lo, hi  float64 // the range its consumers accept
	loOpen  bool    // lo itself is refused
	// env is the function's variable the parameter sets; when set, the
	// built function itself says which values it starts with. Else the
	// range is that of the property the value goes to (see why).
	env string
	// others are parameter values set while trying this one, so that a
	// check across settings (critical >= min) does not refuse a value for
	// another's sake.
	others map[string]string
	why    string // where the range comes from
}

// numericParameters lists every parameter that carries a number. A new one
// must be added here (TestTemplateNumberParameters fails otherwise).
var numericParameters = []numericParameter{
	{name: "WindowSeconds", integer: true, lo: 1, hi: detector.MaxWindow.Seconds(), env: "HOTKEYS_WINDOW",
		why: "the function's window (1 s to 15 min) and TumblingWindowInSeconds (0 to 900)"},
	{name: "BatchSize", integer: true, lo: 1, hi: 10000,
		why: "the event source mapping's BatchSize for DynamoDB streams: at most 10,000 (Lambda developer guide, services-ddb-params)"},
	{name: "BatchingWindowSeconds", integer: true, lo: 0, hi: 300,
		why: "the event source mapping's MaximumBatchingWindowInSeconds: 0 to 300 (Lambda API reference, CreateEventSourceMapping)"},
	{name: "TopKeys", integer: true, lo: 0, hi: alert.MaxTop, env: "HOTKEYS_TOP"},
	{name: "HistoryRetentionDays", integer: true, lo: 1, hi: 3650, env: "HOTKEYS_HISTORY_RETENTION_DAYS"},
	{name: "HistoryWriteShards", integer: true, lo: 1, hi: 1024, env: "HOTKEYS_HISTORY_WRITE_SHARDS"},
	{name: "HistoryWriteSpreadSeconds", integer: true, lo: 0, hi: 20, env: "HOTKEYS_HISTORY_WRITE_SPREAD"},
	{name: "ForecastAlarmDays", integer: true, lo: 0, hi: 90, others: map[string]string{"History": "on"},
		why: "the forecast's horizon is 90 days by default: a threshold beyond it could never be reached"},
	{name: "NotifyMaxPerInvocation", integer: true, lo: 1, hi: 100, env: "HOTKEYS_NOTIFY_MAX_PER_INVOCATION"},
	{name: "ShareThreshold", lo: 0, loOpen: true, hi: 1, env: "HOTKEYS_SHARE_THRESHOLD"},
	{name: "MinWCUPerSecond", lo: 0, hi: 1e9, env: "HOTKEYS_MIN_WCU_PER_SECOND",
		others: map[string]string{"CriticalWCUPerSecond": "1000000000"}},
	{name: "CriticalWCUPerSecond", lo: 0, loOpen: true, hi: 1e9, env: "HOTKEYS_CRITICAL_WCU_PER_SECOND",
		others: map[string]string{"MinWCUPerSecond": "0"}},
	{name: "PartitionLimit", lo: 0, loOpen: true, hi: 1e9, env: "HOTKEYS_PARTITION_LIMIT"},
	// 0 is the function's "the default" for both.
	{name: "SaturationFraction", lo: 0, hi: 1, env: "HOTKEYS_SATURATION_FRACTION"},
	{name: "SaturationSeconds", integer: true, lo: 0, hi: detector.MaxWindow.Seconds(), env: "HOTKEYS_SATURATION_SECONDS"},
	{name: "CriticalRCUPerSecond", lo: 0, loOpen: true, hi: 1e9,
		why: "the client alarm's threshold: a rate above 0, within the detector's bound for client settings (1e9)"},
}

// maxDecimals is the most digits after the point a decimal parameter takes:
// enough for any threshold, and few enough that no value within a bound's
// rounding distance (1 + 1e-17 reads as 1.0) gets past a pattern.
const maxDecimals = 6

// canonical reports whether v is a number written the one way every
// consumer reads alike: a JSON number (RFC 8259: no leading zero, no
// bare point, no plus sign) in plain notation (no exponent), without a
// sign (every range here is non-negative), with at most maxDecimals
// decimals, and without a point for a whole number. It is deliberately
// written without a regular expression, apart from the patterns it judges.
func canonical(v string, integer bool) bool {
	if v == "" || v[0] < '0' || v[0] > '9' || v[len(v)-1] < '0' || v[len(v)-1] > '9' || !json.Valid([]byte(v)) {
		return false
	}
	if strings.ContainsAny(v, "eE") {
		return false
	}
	_, frac, point := strings.Cut(v, ".")
	return !(integer && point) && len(frac) <= maxDecimals
}

// model reports whether the parameter's consumers take v: a canonical
// number within the range. The function's own answer is checked against it
// on every probe (TestTemplateNumberParametersAgreeWithTheFunction).
func (p numericParameter) model(v string) bool {
	if !canonical(v, p.integer) {
		return false
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return false
	}
	return (x > p.lo || (x == p.lo && !p.loOpen)) && x <= p.hi
}

// malformedNumbers are spellings a parser may take and a pattern must not:
// what CloudFormation's Number type, JSON, Go's strconv and a user's typing
// disagree on.
var malformedNumbers = []string{
	"", ".5", "+5", "0800", "60.5", "1e3", "1E3", "-1", "-0", " 5", "5 ", "5.", "05.5",
	"0x10", "Inf", "NaN", "1_000", "1,5", "5\n", "0.1234567",
	"0." + strings.Repeat("0", 400) + "1", // 1e-401: strconv reads 0, without an error
}

// probes returns the values to try on p: the malformed ones, and canonical
// and near-canonical values at and beyond both ends of its range.
func (p numericParameter) probes() []string {
	n := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	out := slices.Clone(malformedNumbers)
	if p.integer {
		for _, d := range []float64{-1, 0, 1} {
			out = append(out, n(p.lo+d), n(p.hi+d))
		}
		out = append(out, n(p.hi)+".0", "0"+n(p.hi))
	} else {
		hi := n(p.hi)
		out = append(out, n(p.lo), "0.0", "0.000001", "0.0000001", "0.5", hi, hi+".0", hi+".000000",
			hi+".000001", hi+"."+strings.Repeat("0", 16)+"1", hi+".5", n(p.hi+1))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// matcher compiles an AllowedPattern as CloudFormation applies it, to the
// whole value. Every pattern here is RE2; one that is not fails the test
// (add github.com/dlclark/regexp2, as schema_test.go's note on lookahead says).
func matcher(t *testing.T, name, pattern string) *regexp.Regexp {
	t.Helper()
	re, err := regexp.Compile("^(?:" + pattern + ")$")
	if err != nil {
		t.Fatalf("parameter %s: AllowedPattern %q is not RE2 (%v): test it with regexp2", name, pattern, err)
	}
	return re
}

// admits reports whether CloudFormation takes v for a parameter declared
// as decl: by its AllowedValues, its AllowedPattern (against the whole
// value) and its lengths for a String; for a Number, by reading v as a
// number within MinValue and MaxValue. CloudFormation does not publish its
// number reader; strconv.ParseFloat stands in for it, and takes .5, +5,
// 0800 and 60.5, as the issue that made these parameters Strings reports
// CloudFormation does.
func admits(t *testing.T, name string, decl map[string]any, v string) bool {
	t.Helper()
	if allowed, ok := decl["AllowedValues"].([]any); ok && !slices.ContainsFunc(allowed, func(a any) bool { return cfn.ScalarString(a) == v }) {
		return false
	}
	if decl["Type"] == "Number" {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return false
		}
		if lo, ok := decl["MinValue"]; ok && x < toFloat(t, lo) {
			return false
		}
		if hi, ok := decl["MaxValue"]; ok && x > toFloat(t, hi) {
			return false
		}
		return true
	}
	if pattern, ok := decl["AllowedPattern"].(string); ok && !matcher(t, name, pattern).MatchString(v) {
		return false
	}
	if n, ok := decl["MinLength"]; ok && float64(len(v)) < toFloat(t, n) {
		return false
	}
	if n, ok := decl["MaxLength"]; ok && float64(len(v)) > toFloat(t, n) {
		return false
	}
	return true
}

// numberValuedParameters returns the parameters whose every value is a
// number: those of numericParameters, and those whose AllowedValues are all
// numbers (LogRetentionInDays). A property that takes a number gets theirs
// as one (cfn.Stack.TypedNumbers).
func numberValuedParameters(tmpl map[string]any) []string {
	var out []string
	for _, p := range numericParameters {
		out = append(out, p.name)
	}
	params, _ := tmpl["Parameters"].(map[string]any)
	for name, decl := range params {
		allowed, _ := decl.(map[string]any)["AllowedValues"].([]any)
		if len(allowed) > 0 && !slices.ContainsFunc(allowed, func(v any) bool { return !canonical(cfn.ScalarString(v), true) }) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func numericParameterNamed(t *testing.T, name string) numericParameter {
	t.Helper()
	i := slices.IndexFunc(numericParameters, func(p numericParameter) bool { return p.name == name })
	if i < 0 {
		t.Fatalf("%s is not in numericParameters", name)
	}
	return numericParameters[i]
}

// TestTemplateNumberParameters checks that every parameter carrying a number
// is a String whose AllowedPattern admits exactly the canonical numbers in
// its range, on every whole number around the range and on thousands of
// decimals, canonical or not. CloudFormation converts such a string where a
// property takes a number: a Number parameter's value is a string too once
// referenced (CloudFormation User Guide, Parameters, Type).
func TestTemplateNumberParameters(t *testing.T) {
	tmpl := readTemplate(t)
	params := tmpl["Parameters"].(map[string]any)
	listed := map[string]bool{}
	for _, p := range numericParameters {
		listed[p.name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(params)) {
		decl := params[name].(map[string]any)
		if decl["Type"] == "Number" {
			t.Errorf("parameter %s is a Number, which takes any integer or float (60.5, .5, 0800): make it a String with an AllowedPattern and add it to numericParameters", name)
			continue
		}
		if _, err := strconv.ParseFloat(cfn.ScalarString(decl["Default"]), 64); err == nil && !listed[name] && decl["AllowedValues"] == nil {
			t.Errorf("parameter %s defaults to a number: add it to numericParameters", name)
		}
	}

	rng := rand.New(rand.NewPCG(24, 2))
	for _, p := range numericParameters {
		t.Run(p.name, func(t *testing.T) {
			decl, _ := params[p.name].(map[string]any)
			pattern, _ := decl["AllowedPattern"].(string)
			if decl["Type"] != "String" || pattern == "" {
				t.Fatalf("Type %v, AllowedPattern %q: want a String with a pattern", decl["Type"], pattern)
			}
			if desc, _ := decl["ConstraintDescription"].(string); len(desc) < 20 {
				t.Errorf("ConstraintDescription %q: say what a valid value looks like", desc)
			}
			if def := cfn.ScalarString(decl["Default"]); !p.model(def) {
				t.Errorf("default %q is outside what the parameter allows", def)
			}
			re := matcher(t, p.name, pattern)
			try := func(v string) {
				if got, want := re.MatchString(v), p.model(v); got != want {
					t.Errorf("pattern %s on %q: %v, want %v", pattern, v, got, want)
				}
			}
			for _, v := range p.probes() {
				try(v)
			}
			if p.integer {
				for n := int(p.lo) - 2; n <= int(p.hi)+2; n++ {
					s := strconv.Itoa(n)
					try(s)
					try("0" + s)
					try(s + ".0")
				}
				return
			}
			// Decimals: random integer parts across the range and past it,
			// random fractions of up to 8 digits, some spelt wrongly.
			wholes := []int64{0, 1, 9, 10, int64(p.hi) - 1, int64(p.hi), int64(p.hi) + 1}
			for range 5000 {
				var w int64
				if rng.IntN(2) == 0 {
					w = wholes[rng.IntN(len(wholes))]
				} else {
					w = rng.Int64N(int64(p.hi)*2 + 2)
				}
				v := strconv.FormatInt(w, 10)
				if d := rng.IntN(9); d > 0 {
					frac := make([]byte, d)
					for i := range frac {
						frac[i] = byte('0' + rng.IntN(10))
						if rng.IntN(3) == 0 {
							frac[i] = '0'
						}
					}
					v += "." + string(frac)
				}
				switch rng.IntN(12) {
				case 0:
					v = "0" + v
				case 1:
					v = "+" + v
				case 2:
					v += "e0"
				}
				try(v)
			}
		})
	}
}

// TestTemplateNumberParametersAgreeWithTheFunction runs the built function
// on every probe of every parameter that sets one of its variables:
// CloudFormation must take exactly the values the function starts with that
// are canonical, and on canonical values the function must agree with the
// range the pattern test assumes. A Number typed 60.5, which CloudFormation
// took, used to end every cold start; what the function still takes that
// the pattern does not ("+5", "0800", an empty value meaning the default)
// is listed with -v.
func TestTemplateNumberParametersAgreeWithTheFunction(t *testing.T) {
	tmpl := readTemplate(t)
	params := tmpl["Parameters"].(map[string]any)
	for _, p := range numericParameters {
		if p.env == "" {
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			decl, _ := params[p.name].(map[string]any)
			probes := p.probes()
			type outcome struct {
				starts bool
				line   string
				err    error
			}
			got := make([]outcome, len(probes))
			var wg sync.WaitGroup
			sem := make(chan struct{}, 2)
			for i, v := range probes {
				values := map[string]string{p.name: v}
				for k, o := range p.others {
					values[k] = o
				}
				env := functionEnvironment(t, deploy(t, tmpl, values))
				if !strings.Contains(env[p.env], v) {
					t.Fatalf("%s=%q gives %s=%q", p.name, v, p.env, env[p.env])
				}
				wg.Go(func() {
					sem <- struct{}{}
					defer func() { <-sem }()
					starts, line, err := functionStarts(env)
					got[i] = outcome{starts, line, err}
				})
			}
			wg.Wait()
			var lenient []string
			for i, v := range probes {
				o := got[i]
				if o.err != nil {
					t.Fatalf("%s=%q: %v", p.name, v, o.err)
				}
				if !o.starts && !strings.Contains(o.line, p.env) {
					t.Errorf("%q: the function's error does not name %s: %s", v, p.env, o.line)
				}
				if want := o.starts && canonical(v, p.integer); admits(t, p.name, decl, v) != want {
					t.Errorf("%q: CloudFormation takes it = %v, but the function starts = %v and canonical = %v %s",
						v, !want, o.starts, canonical(v, p.integer), o.line)
				}
				if canonical(v, p.integer) && o.starts != p.model(v) {
					t.Errorf("%q: the function starts = %v, the range [%v, %v] (open at lo: %v) says %v: fix numericParameters",
						v, o.starts, p.lo, p.hi, p.loOpen, p.model(v))
				}
				if o.starts && !canonical(v, p.integer) {
					lenient = append(lenient, strconv.Quote(v))
				}
			}
			t.Logf("the function also starts with %s, which the pattern refuses", strings.Join(lenient, ", "))
		})
	}
}

// TestTemplateNumbersKeepTheDashboardJSON deploys every value among the
// probes that CloudFormation takes for each numeric parameter and checks that the dashboard body,
// which carries ShareThreshold and the rates unquoted, is still JSON, with
// each annotation the number the parameter says.
func TestTemplateNumbersKeepTheDashboardJSON(t *testing.T) {
	tmpl := readTemplate(t)
	params := tmpl["Parameters"].(map[string]any)
	for _, p := range numericParameters {
		decl, _ := params[p.name].(map[string]any)
		for _, v := range p.probes() {
			if !admits(t, p.name, decl, v) {
				continue
			}
			values := map[string]string{p.name: v, "IndexAnalysis": "on", "History": "on"} // History: the forecast widget
			for k, o := range p.others {
				values[k] = o
			}
			s := deploy(t, tmpl, values)
			body, _ := properties(mustResource(t, s, "HotKeysDashboard"))["DashboardBody"].(string)
			var d struct {
				Widgets []struct {
					Properties struct {
						Annotations struct {
							Horizontal []struct {
								Label string
								Value json.Number
							}
						}
					}
				}
			}
			dec := json.NewDecoder(strings.NewReader(body))
			dec.UseNumber()
			if err := dec.Decode(&d); err != nil {
				t.Errorf("%s=%q: the dashboard body is not JSON: %v", p.name, v, err)
				continue
			}
			annotated := map[string]string{"critical": "CriticalWCUPerSecond", "partition limit": "PartitionLimit", "warning": "ShareThreshold", "alarm": "ForecastAlarmDays"}
			for _, w := range d.Widgets {
				for _, a := range w.Properties.Annotations.Horizontal {
					if param, ok := annotated[a.Label]; !ok {
						t.Errorf("annotation %q: which parameter does it show?", a.Label)
					} else if want := s.Param(param); string(a.Value) != want {
						t.Errorf("%s=%q: annotation %q is %s, want %s", p.name, v, a.Label, a.Value, want)
					}
				}
			}
		}
	}
}
