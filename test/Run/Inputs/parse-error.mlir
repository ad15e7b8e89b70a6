func.func @f() {
  %x = oneflow.relu
}
