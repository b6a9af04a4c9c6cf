from palace_lab.files import files_touched, normalise_path


def test_backticks_first_then_text_and_normalised():
    text = ("Edited `src/app/pool.py:42` and ./tests/test_pool.py; see https://example.com/x.py "
            "version 3.11 and 1.0.2, e.g. foo.bar; Dockerfile; diff a/src/x.rs b/src/x.rs; "
            "/home/ann/src/app/fly.toml; .js .ts -design.md .gitignore .env.example")
    assert files_touched(text, cwd="/home/ann/src/app") == (
        "src/app/pool.py", "tests/test_pool.py", "Dockerfile", "src/x.rs", "fly.toml",
        ".gitignore", ".env.example")


def test_normalise_path():
    assert normalise_path("C:\\repo\\src\\main.rs:10:2") == "C:/repo/src/main.rs"
    assert normalise_path("./a/b.py") == "a/b.py"
    assert normalise_path("/w/proj/a.py", "/w/proj/") == "a.py"


def test_limit_and_no_duplicates():
    text = " ".join(f"m{i}.py m{i}.py" for i in range(80))
    out = files_touched(text, limit=50)
    assert len(out) == 50 and len(set(out)) == 50
