package templatetest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// metricRef is one metric that an alarm or a dashboard widget reads.
type metricRef struct {
	where     string // "alarm HotKeyCriticalAlarm", "dashboard widget 4"
	namespace string
	name      string
	// dimensions maps each dimension the reference names to the value it
	// asks for; "" when any value will do (a Metrics Insights GROUP BY).
	dimensions map[string]string
	// schema lists, for a Metrics Insights query, the dimensions of its
	// SCHEMA(...): the query reads only metrics with exactly these.
	schema []string
	// stat is the statistic (Maximum, Sum, ...) or, for a query, its
	// function (MAX, SUM, ...).
	stat     string
	insights bool
	groupBy  []string
}

func (m metricRef) String() string {
	return fmt.Sprintf("%s: %s/%s %v (%s)", m.where, m.namespace, m.name, m.dimensions, m.stat)
}

// dimensionNames returns the dimension names a metric must carry for the
// reference to read it: the SCHEMA of a query, else the names it lists.
func (m metricRef) dimensionNames() []string {
	if m.insights {
		return slices.Sorted(slices.Values(m.schema))
	}
	names := make([]string, 0, len(m.dimensions))
	for n := range m.dimensions {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// insightsQuery matches the CloudWatch Metrics Insights queries the template
// writes. It requires SCHEMA(...), so that a query names the exact set of
// dimensions of the metrics it reads (FROM "namespace" alone would read
// any).
var insightsQuery = regexp.MustCompile(`(?is)^\s*SELECT\s+(AVG|COUNT|MAX|MIN|SUM)\s*\(\s*("[^"]+"|\w+)\s*\)` +
	`\s+FROM\s+SCHEMA\s*\(([^)]*)\)` +
	`(?:\s+WHERE\s+(.+?))?` +
	`(?:\s+GROUP\s+BY\s+(.+?))?` +
	`(?:\s+ORDER\s+BY\s+(AVG|COUNT|MAX|MIN|SUM)\s*\(\s*\)(?:\s+(?:ASC|DESC))?)?` +
	`(?:\s+LIMIT\s+\d+)?\s*$`)

var (
	whereTerm = regexp.MustCompile(`^\s*("[^"]+"|\w+)\s*=\s*'([^']*)'\s*$`)
	andWord   = regexp.MustCompile(`(?i)\s+AND\s+`)
)

func unquoteIdent(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// parseInsights reads a Metrics Insights query into a metricRef.
func parseInsights(where, q string) (metricRef, error) {
	m := insightsQuery.FindStringSubmatch(q)
	if m == nil {
		return metricRef{}, fmt.Errorf("%s: not a Metrics Insights query of the supported form: %q", where, q)
	}
	ref := metricRef{where: where, name: unquoteIdent(m[2]), stat: strings.ToUpper(m[1]), insights: true, dimensions: map[string]string{}}
	schema := strings.Split(m[3], ",")
	ref.namespace = unquoteIdent(schema[0])
	for _, d := range schema[1:] {
		ref.schema = append(ref.schema, unquoteIdent(d))
	}
	if m[4] != "" {
		for _, term := range andWord.Split(m[4], -1) {
			t := whereTerm.FindStringSubmatch(term)
			if t == nil {
				return metricRef{}, fmt.Errorf("%s: WHERE term %q: want Dimension = 'value'", where, term)
			}
			ref.dimensions[unquoteIdent(t[1])] = t[2]
		}
	}
	if m[5] != "" {
		for _, d := range strings.Split(m[5], ",") {
			d = unquoteIdent(d)
			ref.groupBy = append(ref.groupBy, d)
			if _, dup := ref.dimensions[d]; !dup {
				ref.dimensions[d] = ""
			}
		}
	}
	for d := range ref.dimensions {
		if !slices.Contains(ref.schema, d) {
			return metricRef{}, fmt.Errorf("%s: %s is not in SCHEMA(%s)", where, d, m[3])
		}
	}
	if m[6] != "" && !strings.EqualFold(m[6], m[1]) {
		return metricRef{}, fmt.Errorf("%s: ORDER BY %s() but SELECT %s()", where, m[6], m[1])
	}
	return ref, nil
}

// mathIdentifier matches the ids a metric-math expression refers to.
var mathIdentifier = regexp.MustCompile(`\b[a-z][a-zA-Z0-9_]*\b`)

// alarmMetricRefs returns the metrics an alarm (its evaluated Properties)
// reads, and checks the shape of a Metrics array: ids unique, one result,
// expressions that refer only to ids of the array.
func alarmMetricRefs(id string, props map[string]any) ([]metricRef, error) {
	where := "alarm " + id
	if name, ok := props["MetricName"].(string); ok {
		ns, _ := props["Namespace"].(string)
		stat, _ := props["Statistic"].(string)
		dims, err := cfnDimensions(props["Dimensions"])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		return []metricRef{{where: where, namespace: ns, name: name, dimensions: dims, stat: stat}}, nil
	}
	queries, _ := props["Metrics"].([]any)
	if len(queries) == 0 {
		return nil, fmt.Errorf("%s: neither MetricName nor Metrics", where)
	}
	ids := map[string]bool{}
	results := 0
	var refs []metricRef
	var expressions []string
	for i, q := range queries {
		qm, _ := q.(map[string]any)
		qid, _ := qm["Id"].(string)
		if ids[qid] {
			return nil, fmt.Errorf("%s: duplicate metric id %q", where, qid)
		}
		ids[qid] = true
		if rd, _ := qm["ReturnData"].(bool); rd {
			results++
		}
		qwhere := fmt.Sprintf("%s metric %d (%s)", where, i, qid)
		if ms, ok := qm["MetricStat"].(map[string]any); ok {
			metric, _ := ms["Metric"].(map[string]any)
			dims, err := cfnDimensions(metric["Dimensions"])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", qwhere, err)
			}
			ns, _ := metric["Namespace"].(string)
			name, _ := metric["MetricName"].(string)
			stat, _ := ms["Stat"].(string)
			refs = append(refs, metricRef{where: qwhere, namespace: ns, name: name, dimensions: dims, stat: stat})
			continue
		}
		expr, _ := qm["Expression"].(string)
		if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(expr)), "SELECT") {
			r, err := parseInsights(qwhere, expr)
			if err != nil {
				return nil, err
			}
			refs = append(refs, r)
			continue
		}
		expressions = append(expressions, expr)
	}
	if results != 1 {
		return nil, fmt.Errorf("%s: %d metrics with ReturnData true, want exactly 1", where, results)
	}
	for _, expr := range expressions {
		for _, word := range mathIdentifier.FindAllString(expr, -1) {
			if !ids[word] {
				return nil, fmt.Errorf("%s: expression %q refers to %q, which is no metric id", where, expr, word)
			}
		}
	}
	return refs, nil
}

func cfnDimensions(v any) (map[string]string, error) {
	out := map[string]string{}
	list, _ := v.([]any)
	for _, d := range list {
		dm, _ := d.(map[string]any)
		name, _ := dm["Name"].(string)
		value, _ := dm["Value"].(string)
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("dimension %s twice", name)
		}
		out[name] = value
	}
	return out, nil
}

// dashboardWidget is one widget of a dashboard body, as much as tests read.
type dashboardWidget struct {
	Type       string         `json:"type"`
	X          int            `json:"x"`
	Y          int            `json:"y"`
	Width      int            `json:"width"`
	Height     int            `json:"height"`
	Properties map[string]any `json:"properties"`
}

// parseDashboard decodes a dashboard body and returns its widgets and the
// metrics its metric widgets read. It refuses the "." and "..." shorthands
// of the metrics arrays so that every reference is spelled out.
func parseDashboard(body string) ([]dashboardWidget, []metricRef, error) {
	var d struct {
		Widgets []dashboardWidget `json:"widgets"`
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &raw); err != nil {
		return nil, nil, fmt.Errorf("dashboard body is not JSON: %w", err)
	}
	for k := range raw {
		if !slices.Contains([]string{"widgets", "start", "end", "periodOverride"}, k) {
			return nil, nil, fmt.Errorf("dashboard body: unknown field %q", k)
		}
	}
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		return nil, nil, fmt.Errorf("dashboard body: %w", err)
	}
	var refs []metricRef
	for i, w := range d.Widgets {
		if w.Type != "metric" {
			continue
		}
		where := fmt.Sprintf("dashboard widget %d (%v)", i, w.Properties["title"])
		stat, _ := w.Properties["stat"].(string)
		if stat == "" {
			stat = "Average" // CloudWatch's default
		}
		entries, _ := w.Properties["metrics"].([]any)
		if len(entries) == 0 {
			return nil, nil, fmt.Errorf("%s: no metrics", where)
		}
		for j, e := range entries {
			items, _ := e.([]any)
			ewhere := fmt.Sprintf("%s metric %d", where, j)
			if len(items) == 0 {
				return nil, nil, fmt.Errorf("%s: empty", ewhere)
			}
			if opts, ok := items[0].(map[string]any); ok {
				expr, _ := opts["expression"].(string)
				if !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(expr)), "SELECT") {
					return nil, nil, fmt.Errorf("%s: expression %q: only Metrics Insights queries are checked; add support before using others", ewhere, expr)
				}
				r, err := parseInsights(ewhere, expr)
				if err != nil {
					return nil, nil, err
				}
				refs = append(refs, r)
				continue
			}
			r := metricRef{where: ewhere, stat: stat, dimensions: map[string]string{}}
			var strs []string
			for _, it := range items {
				switch it := it.(type) {
				case string:
					if it == "." || it == "..." {
						return nil, nil, fmt.Errorf("%s: spell the metric out instead of %q", ewhere, it)
					}
					strs = append(strs, it)
				case map[string]any:
					if s, ok := it["stat"].(string); ok {
						r.stat = s
					}
				default:
					return nil, nil, fmt.Errorf("%s: unexpected %T", ewhere, it)
				}
			}
			if len(strs) < 2 || len(strs)%2 != 0 {
				return nil, nil, fmt.Errorf("%s: want [namespace, metric, (dimension, value)...], got %q", ewhere, strs)
			}
			r.namespace, r.name = strs[0], strs[1]
			for k := 2; k < len(strs); k += 2 {
				r.dimensions[strs[k]] = strs[k+1]
			}
			refs = append(refs, r)
		}
	}
	return d.Widgets, refs, nil
}
