#!/usr/bin/env python3
"""A stand-in for `gh api` and `glab api` (tests/integration/ci_recipe.sh puts
it on PATH as both), so scripts/ci-comment is tested with no network.

Every call is one line of FAKE_LOG: "METHOD PATH". The pull requests'
comments live in the JSON file FAKE_STORE: a list of {"id", "pr", "body",
"user": {"login"}, "author": {"username"}} (both forges' author fields).
Listing answers two comments a page, the pages back to back as --paginate
prints them. New comments are by FAKE_LOGIN. FAKE_FAIL=N: every call fails
with exit N and an API error on stderr, touching nothing.
"""
import json
import os
import re
import sys

PAGE = 2


def load():
    try:
        with open(os.environ["FAKE_STORE"]) as f:
            return json.load(f)
    except FileNotFoundError:
        return []


def save(store):
    with open(os.environ["FAKE_STORE"], "w") as f:
        json.dump(store, f)


def parse(argv):
    """(method, path, body) of `api [--paginate] [--method M] PATH [--input FILE]`."""
    method, path, body, i = None, None, None, 0
    while i < len(argv):
        if argv[i] == "--method":
            method, i = argv[i + 1], i + 2
        elif argv[i] == "--input":
            with open(argv[i + 1]) as f:
                body, i = json.load(f)["body"], i + 2
        elif argv[i] == "--paginate":
            i += 1
        else:
            path, i = argv[i], i + 1
    return method or ("POST" if body is not None else "GET"), path, body


def main(argv):
    if argv[:1] != ["api"]:
        sys.exit(f"fake forge cli: only `api` is faked, got {argv}")
    method, path, body = parse(argv[1:])
    with open(os.environ["FAKE_LOG"], "a") as log:
        log.write(f"{method} {path}\n")
    if os.environ.get("FAKE_FAIL"):
        print("HTTP 401: Bad credentials (https://api.example/)", file=sys.stderr)
        return int(os.environ["FAKE_FAIL"])
    login = os.environ.get("FAKE_LOGIN", "bot")
    if path == "user":
        print(json.dumps({"login": login, "username": login}))
        return 0
    store = load()
    listing = re.fullmatch(r".*/(?:issues|merge_requests)/(\d+)/(?:comments|notes)\?.*", path)
    one = re.fullmatch(r".*/(?:comments|notes)/(\d+)", path)
    if method == "GET" and listing:
        ours = [c for c in store if c["pr"] == int(listing.group(1))]
        pages = [ours[i:i + PAGE] for i in range(0, len(ours), PAGE)] or [[]]
        print("".join(json.dumps(p) for p in pages))
    elif method == "POST" and re.fullmatch(r".*/(\d+)/(?:comments|notes)", path):
        pr = int(re.fullmatch(r".*/(\d+)/(?:comments|notes)", path).group(1))
        new = {"id": 1000 + len(store), "pr": pr, "body": body,
               "user": {"login": login}, "author": {"username": login}}
        save(store + [new])
        print(json.dumps(new))
    elif method in ("PATCH", "PUT") and one:
        hit = [c for c in store if c["id"] == int(one.group(1))]
        if not hit:
            print("HTTP 404: Not Found", file=sys.stderr)
            return 1
        hit[0]["body"] = body
        save(store)
        print(json.dumps(hit[0]))
    else:
        print(f"HTTP 404: no such fake endpoint: {method} {path}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
