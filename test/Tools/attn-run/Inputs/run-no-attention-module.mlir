// An explicit module without an attn.attention.
module @m {
  func.func @f() {
    return
  }
}
