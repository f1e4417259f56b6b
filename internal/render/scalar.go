package render

import (
	"encoding/binary"
	"math"
)

// scalarKind is a binary number type of the files goeq reads, models' and
// volumes', resolved from its name once in a header rather than for every
// value read.
type scalarKind uint8

const (
	scalarInt8 scalarKind = iota + 1
	scalarUint8
	scalarInt16
	scalarUint16
	scalarInt32
	scalarUint32
	scalarInt64
	scalarUint64
	scalarFloat32
	scalarFloat64
)

// size is the kind's size in a binary file.
func (k scalarKind) size() int {
	switch k {
	case scalarInt8, scalarUint8:
		return 1
	case scalarInt16, scalarUint16:
		return 2
	case scalarInt64, scalarUint64, scalarFloat64:
		return 8
	}
	return 4
}

// decode reads one value of the kind from the front of b.
func (k scalarKind) decode(b []byte, order binary.ByteOrder) float64 {
	switch k {
	case scalarInt8:
		return float64(int8(b[0]))
	case scalarUint8:
		return float64(b[0])
	case scalarInt16:
		return float64(int16(order.Uint16(b)))
	case scalarUint16:
		return float64(order.Uint16(b))
	case scalarInt32:
		return float64(int32(order.Uint32(b)))
	case scalarUint32:
		return float64(order.Uint32(b))
	case scalarInt64:
		return float64(int64(order.Uint64(b)))
	case scalarUint64:
		return float64(order.Uint64(b))
	case scalarFloat32:
		return float64(math.Float32frombits(order.Uint32(b)))
	}
	return math.Float64frombits(order.Uint64(b))
}
