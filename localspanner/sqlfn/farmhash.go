package sqlfn

import (
	"encoding/binary"
	"math/bits"
)

// Fingerprint64 is FarmHash's Fingerprint64 (the "na" 64-bit hash), which is what
// Spanner's FARM_FINGERPRINT computes over a value's bytes (as a signed INT64).
// Written from the published algorithm; test vectors in farmhash_test.go.
func Fingerprint64(s []byte) uint64 {
	n := len(s)
	switch {
	case n <= 16:
		return fpLen0to16(s)
	case n <= 32:
		return fpLen17to32(s)
	case n <= 64:
		return fpLen33to64(s)
	}
	return fpLong(s)
}

const (
	fpK0 uint64 = 0xc3a5c85c97cb3127
	fpK1 uint64 = 0xb492b66fbe98f273
	fpK2 uint64 = 0x9ae16a3b2f90404f
)

func fetch64(s []byte, i int) uint64 { return binary.LittleEndian.Uint64(s[i:]) }
func fetch32(s []byte, i int) uint64 { return uint64(binary.LittleEndian.Uint32(s[i:])) }
func rot(v uint64, r int) uint64     { return bits.RotateLeft64(v, -r) }
func shiftMix(v uint64) uint64       { return v ^ (v >> 47) }

func fpMix16(u, v, mul uint64) uint64 {
	a := (u ^ v) * mul
	a ^= a >> 47
	b := (v ^ a) * mul
	b ^= b >> 47
	return b * mul
}

func fpLen0to16(s []byte) uint64 {
	n := len(s)
	switch {
	case n >= 8:
		mul := fpK2 + uint64(n)*2
		a := fetch64(s, 0) + fpK2
		b := fetch64(s, n-8)
		c := rot(b, 37)*mul + a
		d := (rot(a, 25) + b) * mul
		return fpMix16(c, d, mul)
	case n >= 4:
		mul := fpK2 + uint64(n)*2
		a := fetch32(s, 0)
		return fpMix16(uint64(n)+(a<<3), fetch32(s, n-4), mul)
	case n > 0:
		a, b, c := uint32(s[0]), uint32(s[n>>1]), uint32(s[n-1])
		y := a + (b << 8)
		z := uint32(n) + (c << 2)
		return shiftMix(uint64(y)*fpK2^uint64(z)*fpK0) * fpK2
	}
	return fpK2
}

func fpLen17to32(s []byte) uint64 {
	n := len(s)
	mul := fpK2 + uint64(n)*2
	a := fetch64(s, 0) * fpK1
	b := fetch64(s, 8)
	c := fetch64(s, n-8) * mul
	d := fetch64(s, n-16) * fpK2
	return fpMix16(rot(a+b, 43)+rot(c, 30)+d, a+rot(b+fpK2, 18)+c, mul)
}

func fpLen33to64(s []byte) uint64 {
	n := len(s)
	mul := fpK2 + uint64(n)*2
	a := fetch64(s, 0) * fpK2
	b := fetch64(s, 8)
	c := fetch64(s, n-8) * mul
	d := fetch64(s, n-16) * fpK2
	y := rot(a+b, 43) + rot(c, 30) + d
	z := fpMix16(y, a+rot(b+fpK2, 18)+c, mul)
	e := fetch64(s, 16) * mul
	f := fetch64(s, 24)
	g := (y + fetch64(s, n-32)) * mul
	h := (z + fetch64(s, n-24)) * mul
	return fpMix16(rot(e+f, 43)+rot(g, 30)+h, e+rot(f+a, 18)+g, mul)
}

// fpWeak32 mixes 32 bytes at s[i:] with two seeds into a pair.
func fpWeak32(s []byte, i int, a, b uint64) (uint64, uint64) {
	w, x, y, z := fetch64(s, i), fetch64(s, i+8), fetch64(s, i+16), fetch64(s, i+24)
	a += w
	b = rot(b+a+z, 21)
	c := a
	a += x
	a += y
	b += rot(a, 44)
	return a + z, b + c
}

func fpLong(s []byte) uint64 {
	n := len(s)
	seed := uint64(81)
	x := seed
	y := seed*fpK1 + 113
	z := shiftMix(y*fpK2+113) * fpK2
	var v1, v2, w1, w2 uint64
	x = x*fpK2 + fetch64(s, 0)
	end := ((n - 1) / 64) * 64
	last64 := end + ((n - 1) & 63) - 63
	for p := 0; p != end; p += 64 {
		x = rot(x+y+v1+fetch64(s, p+8), 37) * fpK1
		y = rot(y+v2+fetch64(s, p+48), 42) * fpK1
		x ^= w2
		y += v1 + fetch64(s, p+40)
		z = rot(z+w1, 33) * fpK1
		v1, v2 = fpWeak32(s, p, v2*fpK1, x+w1)
		w1, w2 = fpWeak32(s, p+32, z+w2, y+fetch64(s, p+16))
		z, x = x, z
	}
	mul := fpK1 + ((z & 0xff) << 1)
	p := last64
	w1 += uint64((n - 1) & 63)
	v1 += w1
	w1 += v1
	x = rot(x+y+v1+fetch64(s, p+8), 37) * mul
	y = rot(y+v2+fetch64(s, p+48), 42) * mul
	x ^= w2 * 9
	y += v1*9 + fetch64(s, p+40)
	z = rot(z+w1, 33) * mul
	v1, v2 = fpWeak32(s, p, v2*mul, x+w1)
	w1, w2 = fpWeak32(s, p+32, z+w2, y+fetch64(s, p+16))
	z, x = x, z
	return fpMix16(fpMix16(v1, w1, mul)+shiftMix(y)*fpK0+z, fpMix16(v2, w2, mul)+x, mul)
}
