// `sqlx::migrate!` embeds the migrations at compile time; a new file must rebuild the binary.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
