package clientwatch

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// PartiQL statements are charged to the key their WHERE clause (or an
// INSERT's VALUE) names (statement.go); a SELECT costs its items' reads, a
// write at least 1 unit.

func (r *recorder) executeStatement(in *dynamodb.ExecuteStatementInput, o *dynamodb.ExecuteStatementOutput) {
	st := parseStatement(aws.ToString(in.Statement))
	if st.table == "" {
		return
	}
	r.read = st.read
	win := r.target(st.table, "")
	min := uint64(1)
	if st.read && o != nil && r.estimating {
		min = pageUnits(o.Items, strong(in.ConsistentRead))
	}
	r.addStatement(win, st, in.Parameters, 0, min, sizeAtLeast)
	if o != nil {
		r.capacity(o.ConsumedCapacity, nil, win)
	}
}

func (r *recorder) batchStatements(in *dynamodb.BatchExecuteStatementInput, o *dynamodb.BatchExecuteStatementOutput) {
	read := len(in.Statements) > 0 // all statements read: the call's units are read units
	for i, s := range in.Statements {
		st := parseStatement(aws.ToString(s.Statement))
		read = read && st.read
		if st.table == "" {
			continue
		}
		min := uint64(1)
		if st.read {
			size := 0
			if o != nil && i < len(o.Responses) {
				size = sizeOf(o.Responses[i].Item)
			}
			min = readUnits(size, strong(s.ConsistentRead))
		}
		r.addStatement(r.target(st.table, ""), st, s.Parameters, i, min, sizeAtLeast)
	}
	r.read = read
	if o != nil {
		r.capacity(nil, o.ConsumedCapacity, -1)
	}
}

func (r *recorder) transactStatements(in *dynamodb.ExecuteTransactionInput, o *dynamodb.ExecuteTransactionOutput) {
	read := len(in.TransactStatements) > 0 // all statements read: the call's units are read units
	for i, s := range in.TransactStatements {
		st := parseStatement(aws.ToString(s.Statement))
		read = read && st.read
		if st.table == "" {
			r.itemWins = append(r.itemWins, -1)
			continue
		}
		win := r.target(st.table, "")
		r.itemWins = append(r.itemWins, win)
		min := uint64(2)
		if st.read {
			size := 0
			if o != nil && i < len(o.Responses) {
				size = sizeOf(o.Responses[i].Item)
			}
			min = readUnits(size, 4)
		}
		r.addStatement(win, st, s.Parameters, i, min, sizeAtLeast)
	}
	r.read = read
	if o != nil {
		r.capacity(nil, o.ConsumedCapacity, -1)
	}
}

// addStatement adds a statement on window win as an item: its key when it
// names one.
func (r *recorder) addStatement(win int, st statement, params []types.AttributeValue, idx int, min uint64, size sizeKnown) {
	r.wins[win].estimate += min
	pk := r.wins[win].pk
	if pk == "" {
		return
	}
	if v, ok := st.key(pk, params); ok {
		r.addPart(win, v, idx, min, size, 0)
	}
}
