// A well-formed module without an attn.attention.
func.func @f() {
  return
}
