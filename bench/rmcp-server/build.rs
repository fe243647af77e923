fn main() {
    bench_gen::write_out(bench_gen::rmcp());
}
