"""Risk-raising options under the broad rule people write (docs/SPEC.md §4.7), one row each.

A person who writes `Bash(git *)`, `Bash(npm *)` or `Bash(docker *)` means the everyday forms
of the command. An option that adds a kind of effect (writes a file, runs a program or code,
reads a configuration that can name programs, reaches the network, destroys, forces, or acts
as someone else) is marked in the command's catalogue entry, so the shorter rule never covers
it: the person must name the option. An option that reads a file outside the workspace is
held by the read boundary instead, so the rule cannot carry the read out of the project.

Every row pairs the raising form with the everyday form of the same command, under the same
rule: the first must be blocked by the part it names, for a reason holding the piece it
names; the second must run unasked. A row fails when the option's mark is taken away (the
raising form goes through) and when the mark is too broad (the everyday form is asked).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from saikish.types import Autonomy, Verdict
from saikish.types import ReasonKind as Why
from tests.support.attacks import LEVELS, RUNS, A, Attack, assess, blocking_part, context, explain


@dataclass(frozen=True)
class Raising:
    """A broad rule, a raising form it must not cover, and an everyday form it must."""

    rule: str
    attack: Attack
    everyday: str


def R(rule: str, attack: Attack, everyday: str) -> Raising:
    """A row (short name: the tables below are long)."""
    return Raising(rule, attack, everyday)



GIT, GH = "Bash(git *)", "Bash(gh *)"

# -- git: options that run the editor or a program, force, delete, or write elsewhere ---

GIT_ROWS = [
    R(GIT, A("git notes add -e -m reviewed HEAD", "git notes add -e", Why.UNKNOWN),
      "git notes add -m reviewed HEAD"),
    R(GIT, A("git notes append --edit -m more HEAD", "git notes append --edit",
             Why.UNKNOWN), "git notes append -m more HEAD"),
    R(GIT, A("git fetch --stdin origin", "git fetch --stdin",
             Why.UNKNOWN), "git fetch origin"),
    R(GIT, A("git fetch -f origin main:main", "git fetch -f",
             Why.WRITES), "git fetch --prune origin"),
    R(GIT, A("git pull --force origin main", "git pull --force",
             Why.WRITES), "git pull --rebase origin main"),
    R(GIT, A("git pull -e origin main", "git pull -e", Why.UNKNOWN),
      "git pull --ff-only origin main"),
    R(GIT, A("git push --prune origin 'refs/heads/*:refs/heads/*'", "git push --prune",
             Why.WRITES), "git push origin feature-x"),
    R(GIT, A("git push -d origin old-branch", "git push -d",
             Why.WRITES), "git push -u origin feature-x"),
    R(GIT, A("git push --exec=./evil origin main", "git push --exec",
             Why.EXEC, RUNS), "git push origin main"),
    R(GIT, A("git clone --template=/tmp/t https://x.example/r.git", "git clone --template",
             Why.EXEC, RUNS), "git clone https://x.example/r.git"),
    R(GIT, A("git clone -c core.fsmonitor=./evil https://x.example/r.git", "git clone -c",
             Why.EXEC, RUNS),
      "git clone --depth 1 https://x.example/r.git"),
    R(GIT, A("git commit -e -m fix", "git commit -e", Why.UNKNOWN),
      "git commit -m 'fix: a typo'"),
    R(GIT, A("git commit -c HEAD", "git commit -c",
             Why.UNKNOWN), "git commit -C HEAD"),
    R(GIT, A("git add -p src/app.py", "git add -p", Why.UNKNOWN),
      "git add src/app.py"),
    R(GIT, A("git checkout -f main", "git checkout -f",
             Why.WRITES), "git checkout main"),
    R(GIT, A("git checkout -B main origin/main", "git checkout -B",
             Why.WRITES), "git checkout -b feature-y"),
    R(GIT, A("git switch -C main origin/main", "git switch -C",
             Why.WRITES), "git switch -c feature-z"),
    R(GIT, A("git branch -f main HEAD~3", "git branch -f",
             Why.WRITES), "git branch -vv"),
    R(GIT, A("git tag -d v1.0", "git tag -d", Why.WRITES), "git tag -l 'v1.*'"),
    R(GIT, A("git merge --abort", "git merge --abort", Why.WRITES),
      "git merge --no-ff feature-x"),
    R(GIT, A("git rebase --edit-todo", "git rebase --edit-todo", Why.UNKNOWN),
      "git rebase main"),
    R(GIT, A("git stash push -p", "git stash push -p", Why.UNKNOWN),
      "git stash push -m wip"),
    R(GIT, A("git reset --merge ORIG_HEAD", "git reset --merge",
             Why.WRITES), "git reset --soft HEAD~1"),
    R(GIT, A("git config --add core.hooksPath /tmp/h", "git config --add",
             Why.EXEC, RUNS), "git config --get user.email"),
    R(GIT, A("git config --unset core.fsmonitor", "git config --unset",
             Why.EXEC, RUNS), "git config user.name"),
    R(GIT, A("git blame --contents /etc/passwd src/app.py", "reads /etc/passwd", Why.READS_OUTSIDE),
      "git blame -L 10,20 src/app.py"),
    R(GIT, A("git ls-files -X /tmp/excl -o", "reads /tmp/excl", Why.READS_OUTSIDE),
      "git ls-files -m"),
    R(GIT, A("git worktree add -B main .worktrees/m", "git worktree add -B",
             Why.WRITES),
      "git worktree add .worktrees/feature feature-x"),
    R(GIT, A("git submodule update --force", "git submodule update --force",
             Why.WRITES),
      "git submodule update --init --recursive"),
    R(GIT, A("git apply --unsafe-paths fix.patch", "git apply --unsafe-paths",
             Why.WRITES), "git apply fix.patch"),
    R(GIT, A("git am -i 0001-fix.patch", "git am -i", Why.UNKNOWN),
      "git am 0001-fix.patch"),
    R(GIT, A("git archive --exec=./evil --list", "git archive --exec",
             Why.EXEC, RUNS),
      "git archive --format=tar.gz --prefix=app/ HEAD"),
    R(GIT, A("git format-patch --ext-diff -1", "git format-patch --ext-diff",
             Why.EXEC, RUNS), "git format-patch -1 -o patches"),
    R(GIT, A("git init --template=/tmp/t", "git init --template",
             Why.EXEC, RUNS), "git init"),
    R(GIT, A("git --git-dir=/tmp/x.git log", "git --git-dir",
             Why.EXEC, RUNS),
      "git log --oneline -5"),
]

GH_ROWS = [
    R(GH, A("gh repo create demo --source=. --push --public", "gh repo create",
            Why.NETWORK),
      "gh repo create demo --private"),
    R(GH, A("gh repo create demo --source=/tmp/other", "reads /tmp/other", Why.READS_OUTSIDE),
      "gh repo create demo --source=. --private"),
    R(GH, A("gh search repos saikish --web", "gh search repos saikish --web",
            Why.UNKNOWN), "gh search repos saikish"),
    R(GH, A("gh workflow run ci.yml -F cfg=@/etc/passwd", "reads /etc/passwd", Why.READS_OUTSIDE),
      "gh workflow run ci.yml -F env=staging"),
    R(GH, A("gh api -F body=@/etc/hosts repos/o/r/issues", "gh api -F",
            Why.WRITES), "gh api repos/o/r"),
    R(GH, A("gh repo clone o/r d -- --upload-pack=./evil", "gh repo clone o/r d",
            Why.UNKNOWN, RUNS), "gh repo clone o/r d"),
    R(GH, A("gh repo fork o/r --clone -- --template=/tmp/t", "gh repo fork o/r --clone",
            Why.UNKNOWN, RUNS),
      "gh repo fork o/r --clone"),
]

# -- package managers and build tools ------------------------------------------------

NPM, PNPM, BUN, UV = "Bash(npm *)", "Bash(pnpm *)", "Bash(bun *)", "Bash(uv *)"
PIP, PYTEST, NODE = "Bash(pip *)", "Bash(pytest *)", "Bash(node *)"
GO, CARGO, MAKE = "Bash(go *)", "Bash(cargo *)", "Bash(make *)"

PACKAGE_ROWS = [
    R(NPM, A("npm install -g typescript", "npm install -g",
             Why.WRITES), "npm install typescript"),
    R(NPM, A("npm i --global left-pad", "npm i --global", Why.WRITES), "npm i left-pad"),
    R(NPM, A("npm install --location=global eslint", "npm install --location",
             Why.WRITES), "npm install -D eslint"),
    R(NPM, A("npm update -g", "npm update -g", Why.WRITES),
      "npm update"),
    R(NPM, A("npm uninstall -g typescript", "npm uninstall -g",
             Why.WRITES), "npm uninstall typescript"),
    R(NPM, A("npm --git=./evil install", "npm --git", Why.EXEC, RUNS),
      "npm ci"),
    R(NPM, A("npm test --node-options='--require ./evil.js'", "npm test --node-options",
             Why.EXEC, RUNS), "npm test"),
    R(NPM, A("npm --userconfig=/tmp/npmrc install", "npm --userconfig",
             Why.EXEC, RUNS), "npm install --no-audit"),
    R(NPM, A("npm install --prefix /tmp/x left-pad", "writes /tmp/x", Why.WRITES),
      "npm install --save-dev left-pad"),
    R("Bash(npx *)", A("npx --prefix /tmp/x cowsay hi", "writes /tmp/x", Why.WRITES),
      "npx echo hi"),
    R(PNPM, A("pnpm add -g typescript", "pnpm add -g", Why.WRITES),
      "pnpm add typescript"),
    R(PNPM, A("pnpm remove -g typescript", "pnpm remove -g",
              Why.WRITES), "pnpm remove typescript"),
    R(PNPM, A("pnpm -C /tmp/other install", "reads /tmp/other", Why.READS_OUTSIDE),
      "pnpm -C packages/web install"),
    R(PNPM, A("pnpm --pnpmfile=/tmp/hooks.cjs install", "pnpm --pnpmfile",
              Why.EXEC, RUNS), "pnpm install --frozen-lockfile"),
    R("Bash(yarn *)", A("yarn --cwd /tmp/other install", "reads /tmp/other", Why.READS_OUTSIDE),
      "yarn --cwd packages/web install"),
    R(BUN, A("bun add -g typescript", "bun add -g", Why.WRITES), "bun add typescript"),
    R(BUN, A("bun --cwd /tmp/other install", "reads /tmp/other", Why.READS_OUTSIDE), "bun install"),
    R(BUN, A("bun run --inspect app.ts", "bun run --inspect",
             Why.NETWORK), "bun run build"),
    R(BUN, A("bun test --preload ./setup.ts", "bun test --preload",
             Why.EXEC, RUNS), "bun test"),
    R(BUN, A("bun test --coverage-dir=/tmp/cov", "bun test --coverage-dir",
             Why.WRITES), "bun test --coverage"),
    R(BUN, A("bun test --reporter-outfile=/tmp/junit.xml", "bun test --reporter-outfile",
             Why.WRITES), "bun test --bail"),
    R(BUN, A("bun test --inspect-brk", "bun test --inspect-brk", Why.NETWORK),
      "bun test --watch"),
    R(PIP, A("pip install --user requests", "pip install --user",
             Why.WRITES), "pip install requests"),
    R(PIP, A("pip install --break-system-packages requests",
             "pip install --break-system-packages", Why.WRITES),
      "pip install -U requests"),
    R(PIP, A("pip uninstall -y --break-system-packages requests",
             "pip uninstall -y --break-system-packages", Why.WRITES),
      "pip uninstall -y requests"),
    R(PIP, A("pip install -t /tmp/site requests", "writes /tmp/site", Why.WRITES),
      "pip install -r requirements.txt"),
    R(UV, A("uv sync --python /tmp/py", "uv sync --python",
            Why.EXEC, RUNS), "uv sync"),
    R(UV, A("uv lock -p ./evil-python", "uv lock -p", Why.EXEC, RUNS), "uv lock"),
    R(UV, A("uv add --python /tmp/py requests", "uv add --python", Why.EXEC, RUNS),
      "uv add requests"),
    R(UV, A("uv pip install --python /tmp/py requests", "uv pip install --python",
            Why.EXEC, RUNS), "uv pip install requests"),
    R(UV, A("uv tool install --python /tmp/py ruff", "uv tool install --python",
            Why.EXEC, RUNS), "uv tool install ruff"),
    R(UV, A("uv build --python /tmp/py", "uv build --python", Why.EXEC, RUNS),
      "uv build"),
    R(UV, A("uv init --python /tmp/py app", "uv init --python", Why.EXEC, RUNS),
      "uv init app"),
    R(UV, A("uv --directory /tmp/other sync", "reads /tmp/other", Why.READS_OUTSIDE),
      "uv --directory packages/api sync"),
    R(UV, A("uv --project /tmp/other run ls", "reads /tmp/other", Why.READS_OUTSIDE),
      "uv --project packages/api sync"),
    R(UV, A("uv run --with-editable /tmp/lib ls", "reads /tmp/lib", Why.READS_OUTSIDE),
      "uv run --with-editable ./lib ls"),
    R(UV, A("uv pip install --system requests", "uv pip install --system",
            Why.WRITES), "uv pip install -r requirements.txt"),
    R(UV, A("uv pip install --break-system-packages requests",
            "uv pip install --break-system-packages", Why.WRITES),
      "uv pip install -U requests"),
    R(UV, A("uv --config-file /tmp/uv.toml sync", "uv --config-file",
            Why.EXEC, RUNS), "uv sync --frozen"),
    R("Bash(poetry *)", A("poetry -C /tmp/other install", "reads /tmp/other", Why.READS_OUTSIDE),
      "poetry install"),
    R("Bash(poetry *)", A("poetry -P /tmp/other build", "reads /tmp/other", Why.READS_OUTSIDE),
      "poetry build"),
]

BUILD_ROWS = [
    R(PYTEST, A("pytest -c /tmp/ci.ini", "pytest -c", Why.EXEC,
                RUNS), "pytest -q tests"),
    R(PYTEST, A("pytest --config-file=ci.ini tests", "pytest --config-file",
                Why.EXEC, RUNS), "pytest tests -k smoke"),
    R(PYTEST, A("pytest --cov=src --cov-config=/tmp/covrc", "--cov-config",
                Why.EXEC, RUNS),
      "pytest --cov=src --cov-report=term-missing"),
    R(PYTEST, A("pytest -n 2 --tx 'popen//python=/tmp/py'", "--tx",
                Why.EXEC, RUNS), "pytest -n 4"),
    R(PYTEST, A("pytest --report-log=/tmp/r.jsonl", "pytest --report-log",
                Why.WRITES), "pytest -x"),
    R(PYTEST, A("pytest --json-report-file=report.json", "pytest --json-report-file",
                Why.WRITES), "pytest --lf"),
    R(PYTEST, A("pytest --alluredir=/tmp/allure", "pytest --alluredir",
                Why.WRITES), "pytest --maxfail=1"),
    R(PYTEST, A("pytest -p no:cacheprovider -p evil", "pytest -p no:cacheprovider -p",
                Why.EXEC, RUNS), "pytest -q --no-header"),
    R(PYTEST, A("pytest --junit-xml=/tmp/j.xml", "writes /tmp/j.xml", Why.WRITES),
      "pytest -q"),
    R(MAKE, A("make -I /tmp/mk all", "reads /tmp/mk", Why.READS_OUTSIDE), "make -j4 all"),
    R(CARGO, A("cargo -C /tmp/other build", "reads /tmp/other", Why.READS_OUTSIDE),
      "cargo build --release"),
    R(CARGO, A("cargo build --target-dir /tmp/t", "cargo build --target-dir",
               Why.WRITES), "cargo build -p core"),
    R(GO, A("go build -C /tmp/other ./...", "reads /tmp/other", Why.READS_OUTSIDE),
      "go build ./..."),
    R(GO, A("go run -C /tmp/other .", "reads /tmp/other", Why.READS_OUTSIDE), "go run ./cmd/app"),
    R(GO, A("go test -C ../other ./...", "reads ../other", Why.READS_OUTSIDE),
      "go test -race ./..."),
    R(GO, A("go vet -C /tmp/other ./...", "reads /tmp/other", Why.READS_OUTSIDE), "go vet ./..."),
    R(GO, A("go mod edit -replace example.com/m=../m /tmp/x/go.mod", "writes /tmp/x/go.mod",
            Why.WRITES), "go mod edit -go=1.22"),
    R(GO, A("go work edit -use=./svc /tmp/x/go.work", "writes /tmp/x/go.work", Why.WRITES),
      "go work edit -use=./svc"),
    R(GO, A("go clean -i ./cmd/tool", "go clean -i",
            Why.WRITES), "go clean"),
    R(GO, A("go build -o /tmp/app .", "writes /tmp/app", Why.WRITES), "go build ./cmd/app"),
    R(GO, A("go test -exec ./wrap ./...", "go test -exec",
            Why.EXEC, RUNS), "go test -count=1 ./..."),
    R(NODE, A("node --openssl-config=/tmp/o.cnf app.js", "node --openssl-config",
              Why.EXEC, RUNS), "node app.js"),
    R(NODE, A("node --run build", "node --run",
              Why.EXEC, RUNS),
      "node --enable-source-maps app.js"),
    R(NODE, A("node --snapshot-blob snap.blob app.js", "node --snapshot-blob",
              Why.EXEC, RUNS), "node --no-warnings app.js"),
    R(NODE, A("node --build-snapshot entry.js", "node --build-snapshot",
              Why.WRITES), "node entry.js"),
    R(NODE, A("node --experimental-config-file=node.config.json app.js",
              "node --experimental-config-file", Why.EXEC, RUNS),
      "node --input-type=module app.js"),
    R(NODE, A("node --experimental-network-imports app.mjs",
              "node --experimental-network-imports", Why.NETWORK),
      "node app.mjs"),
    R(NODE, A("node --tls-keylog=/tmp/keys.log app.js", "node --tls-keylog",
              Why.WRITES), "node --trace-warnings app.js"),
    R(NODE, A("node --redirect-warnings=/tmp/w.log app.js", "node --redirect-warnings",
              Why.WRITES), "node --watch app.js"),
    R(NODE, A("node --report-directory=/tmp/r app.js", "node --report-directory",
              Why.WRITES), "node --enable-source-maps dist/app.js"),
    R(NODE, A("node --report-filename=/tmp/r.json app.js", "node --report-filename",
              Why.WRITES), "node --check app.js"),
    R(NODE, A("node --diagnostic-dir=/tmp/d app.js", "node --diagnostic-dir",
              Why.WRITES), "node app.js --port 3000"),
    R(NODE, A("node --cpu-prof --cpu-prof-dir=/tmp/p app.js", "--cpu-prof-dir",
              Why.WRITES), "node --cpu-prof app.js"),
    R(NODE, A("node --heap-prof --heap-prof-dir=/tmp/p app.js", "--heap-prof-dir",
              Why.WRITES), "node --heap-prof app.js"),
    R(NODE, A("node --localstorage-file=/tmp/ls app.js", "node --localstorage-file",
              Why.WRITES), "node --max-old-space-size=4096 app.js"),
    R(NODE, A("node --trace-event-file-pattern=/tmp/t.log app.js",
              "node --trace-event-file-pattern", Why.WRITES),
      "node --trace-deprecation app.js"),
    R(NODE, A("node --import ./evil.mjs app.js", "node --import",
              Why.EXEC, RUNS), "node --stack-size=2000 app.js"),
    R("Bash(python3 *)", A("python3 -i app.py", "python3 -i",
                           Why.UNKNOWN), "python3 -B app.py"),
]

# -- containers and clusters ------------------------------------------------------------

DOCKER, COMPOSE, KUBECTL = "Bash(docker *)", "Bash(docker-compose *)", "Bash(kubectl *)"

CONTAINER_ROWS = [
    R(DOCKER, A("docker exec --privileged web sh", "docker exec --privileged",
                Why.WRITES),
      "docker exec web ls /app"),
    R(DOCKER, A("docker container exec --privileged web sh", "docker container exec",
                Why.WRITES), "docker container exec -it web sh"),
    R(DOCKER, A("docker compose exec --privileged web sh", "docker compose exec --privileged",
                Why.WRITES), "docker compose exec web ls"),
    R(COMPOSE, A("docker-compose exec --privileged web sh", "docker-compose exec",
                 Why.WRITES), "docker-compose exec -T web ls"),
    R(DOCKER, A("docker run --network=host alpine", "docker run --network",
                Why.WRITES), "docker run --rm alpine echo hi"),
    R(DOCKER, A("docker run --ipc=host alpine", "docker run --ipc",
                Why.WRITES), "docker run -it --rm alpine sh"),
    R(DOCKER, A("docker run --volumes-from data alpine", "docker run --volumes-from",
                Why.WRITES), "docker run -d --name web nginx"),
    R(DOCKER, A("docker run --device-cgroup-rule='b 8:* rmw' alpine",
                "docker run --device-cgroup-rule", Why.WRITES),
      "docker run -e MODE=dev -p 8080:80 nginx"),
    R(DOCKER, A("docker container run --network host alpine", "docker container run",
                Why.WRITES),
      "docker container run --rm alpine true"),
    R(DOCKER, A("docker create --volumes-from data alpine", "docker create --volumes-from",
                Why.WRITES), "docker create --name web nginx"),
    R(DOCKER, A("docker container create --ipc=host alpine", "docker container create",
                Why.WRITES), "docker container create alpine"),
    R(DOCKER, A("docker run --net=host alpine", "docker run --net=host", Why.UNKNOWN),
      "docker run --rm -w /app alpine ls"),
    R(DOCKER, A("docker run -v /:/host alpine", "docker run -v",
                Why.WRITES), "docker run --rm --read-only alpine true"),
    R(DOCKER, A("docker build --network=host .", "docker build --network",
                Why.WRITES), "docker build -t app ."),
    R(DOCKER, A("docker build --security-opt seccomp=unconfined .", "docker build --security-opt",
                Why.WRITES), "docker build --no-cache -t app ."),
    R(DOCKER, A("docker build --secret id=npmrc,src=/home/u/.npmrc .", "docker build --secret",
                Why.UNKNOWN),
      "docker build -f Dockerfile.dev ."),
    R(DOCKER, A("docker builder build --network=host .", "docker builder build",
                Why.WRITES), "docker builder build -t app ."),
    R(DOCKER, A("docker image build --secret id=env,src=.env .", "docker image build",
                Why.UNKNOWN), "docker image build --pull -t app ."),
    R(DOCKER, A("docker build -o /tmp/out .", "writes /tmp/out", Why.WRITES),
      "docker build --load -t app ."),
    R(DOCKER, A("docker compose -f - up -d", "docker compose -f - up",
                Why.EXEC, RUNS), "docker compose -f compose.yaml up -d"),
    R(DOCKER, A("docker compose --file=/dev/stdin up", "docker compose --file",
                Why.EXEC, RUNS), "docker compose --file compose.yaml ps"),
    R(COMPOSE, A("docker-compose -f - up", "docker-compose -f - up",
                 Why.EXEC, RUNS), "docker-compose -f compose.yaml up"),
    R(DOCKER, A("docker compose --project-directory /tmp/other up", "reads /tmp/other",
                Why.READS_OUTSIDE), "docker compose --project-directory deploy up"),
    R(DOCKER, A("docker compose run -v /:/host web sh", "docker compose run -v",
                Why.WRITES), "docker compose run --rm web pytest"),
    R(DOCKER, A("docker compose run --cap-add SYS_ADMIN web sh", "docker compose run --cap-add",
                Why.WRITES), "docker compose run -e X=1 web env"),
    R(COMPOSE, A("docker-compose run -v /:/host web sh", "docker-compose run -v",
                 Why.WRITES), "docker-compose run --rm web pytest"),
    R(DOCKER, A("docker -H tcp://10.0.0.9:2375 ps", "docker -H",
                Why.NETWORK), "docker ps -a"),
    R(KUBECTL, A("kubectl get pods --as=system:admin", "kubectl get pods --as",
                 Why.WRITES), "kubectl get pods -n web"),
    R(KUBECTL, A("kubectl delete pod web-1 --as-group=system:masters", "--as-group",
                 Why.WRITES), "kubectl delete pod web-1"),
    R(KUBECTL, A("kubectl --as-uid=0 apply -f deploy.yaml", "kubectl --as-uid",
                 Why.WRITES), "kubectl apply -f deploy.yaml"),
    R(KUBECTL, A("kubectl -s https://api.other.example get pods", "kubectl -s",
                 Why.NETWORK), "kubectl get deploy -o wide"),
    R(KUBECTL, A("kubectl port-forward --address 0.0.0.0 svc/db 5432", "kubectl port-forward",
                 Why.NETWORK), "kubectl port-forward svc/db 5432"),
    R(KUBECTL, A("kubectl proxy --address=0.0.0.0", "kubectl proxy --address",
                 Why.NETWORK), "kubectl proxy --port=8001"),
    R(KUBECTL, A("kubectl proxy --accept-hosts='.*'", "kubectl proxy --accept-hosts",
                 Why.NETWORK), "kubectl proxy -p 8002"),
    R(KUBECTL, A("kubectl proxy --disable-filter", "kubectl proxy --disable-filter",
                 Why.WRITES), "kubectl proxy"),
    R(KUBECTL, A("kubectl proxy --www=/etc", "reads /etc", Why.READS_OUTSIDE),
      "kubectl proxy --www=static"),
    R(KUBECTL, A("kubectl create -f deploy.yaml --edit", "kubectl create -f deploy.yaml --edit",
                 Why.UNKNOWN), "kubectl create -f deploy.yaml"),
    R(KUBECTL, A("kubectl run dbg --image=alpine --privileged", "kubectl run dbg",
                 Why.WRITES),
      "kubectl run dbg --image=alpine --restart=Never"),
    R(KUBECTL, A("kubectl run dbg --image=alpine --overrides='{\"spec\":{\"hostPID\":true}}'",
                 "kubectl run dbg", Why.WRITES),
      "kubectl run dbg --image=alpine --rm -i"),
    R(KUBECTL, A("kubectl apply --server-side --force-conflicts -f deploy.yaml",
                 "kubectl apply", Why.WRITES),
      "kubectl apply --server-side -f deploy.yaml"),
    R(KUBECTL, A("kubectl kustomize --enable-alpha-plugins overlays/prod", "kubectl kustomize",
                 Why.EXEC, RUNS), "kubectl kustomize overlays/prod"),
    R(KUBECTL, A("kubectl kustomize --enable-helm overlays/prod", "kubectl kustomize",
                 Why.EXEC, RUNS), "kubectl kustomize base"),
    R(KUBECTL, A("kubectl kustomize --helm-command=/tmp/h base", "kubectl kustomize",
                 Why.EXEC, RUNS), "kubectl kustomize ."),
    R(KUBECTL, A("kubectl kustomize --load-restrictor=LoadRestrictionsNone base",
                 "kubectl kustomize", Why.UNKNOWN),
      "kubectl kustomize overlays/staging"),
    R(KUBECTL, A("kubectl kustomize -o /tmp/out.yaml base", "writes /tmp/out.yaml", Why.WRITES),
      "kubectl kustomize overlays/dev"),
    R(KUBECTL, A("kubectl patch deploy web --patch-file=/tmp/p.yaml", "reads /tmp/p.yaml",
                 Why.READS_OUTSIDE), "kubectl patch deploy web --patch-file=patch.yaml"),
]

# -- network, archive and file tools ----------------------------------------------------

CURL, SSH, RSYNC = "Bash(curl *)", "Bash(ssh *)", "Bash(rsync *)"

TOOL_ROWS = [
    R("Bash(split *)", A("split -n 4 --filter='sh -c id' data.csv", "split -n 4 --filter",
                         Why.EXEC, RUNS),
      "split -n 4 data.csv part-"),
    R("Bash(zstd *)", A("zstd -D /etc/ssl/dict -d x.zst", "reads /etc/ssl/dict", Why.READS_OUTSIDE),
      "zstd -d x.zst"),
    R("Bash(zstd *)", A("zstd --rm data.csv", "zstd --rm", Why.WRITES),
      "zstd -19 data.csv"),
    R("Bash(fd *)", A("fd --base-directory /etc passwd", "reads /etc", Why.READS_OUTSIDE),
      "fd -e py"),
    R("Bash(fd *)", A("fd --search-path /var/log error", "reads /var/log", Why.READS_OUTSIDE),
      "fd --search-path src test_"),
    R("Bash(fd *)", A("fd -e py -x sh -c id", "fd -e py", Why.EXEC, RUNS),
      "fd -t f -e md"),
    R(CURL, A("curl --proxy-header @/etc/hosts -x http://p.example https://x.example",
              "reads /etc/hosts", Why.READS_OUTSIDE), "curl -fsSL https://x.example/a.txt"),
    R(CURL, A("curl --url @/etc/hosts", "reads /etc/hosts", Why.READS_OUTSIDE),
      "curl --url https://x.example"),
    R(CURL, A("curl -c /tmp/jar https://x.example", "curl -c",
              Why.WRITES), "curl -I https://x.example"),
    R(CURL, A("curl -O https://x.example/a.sh", "curl -O",
              Why.WRITES),
      "curl -L https://x.example/a.sh"),
    R(CURL, A("curl --unix-socket /var/run/docker.sock http://x/containers/json",
              "curl --unix-socket", Why.UNKNOWN),
      "curl -H 'Accept: application/json' https://x.example"),
    R("Bash(wget *)", A("wget -o /tmp/w.log https://x.example", "wget -o",
                        Why.WRITES), "wget -q https://x.example/f.tgz"),
    R("Bash(wget *)", A("wget --use-askpass=./evil https://x.example", "wget --use-askpass",
                        Why.EXEC, RUNS),
      "wget -c https://x.example/f.tgz"),
    R(SSH, A("ssh -K build.example make", "ssh -K",
             Why.UNKNOWN),
      "ssh build.example uptime"),
    R(SSH, A("ssh -A build.example", "ssh -A", Why.UNKNOWN),
      "ssh -p 2222 build.example ls"),
    R(SSH, A("ssh -R 8080:localhost:80 build.example", "ssh -R",
             Why.UNKNOWN), "ssh -T git@github.com"),
    R("Bash(scp *)", A("scp -S ./evil f h:", "scp -S", Why.EXEC,
                       RUNS), "scp f build.example:f"),
    R(RSYNC, A("rsync -a --trust-sender h:src/ dst/", "rsync -a --trust-sender",
               Why.WRITES), "rsync -a h:src/ dst/"),
    R(RSYNC, A("rsync -a --remove-source-files src/ dst/", "rsync -a --remove-source-files",
               Why.WRITES), "rsync -av src/ dst/"),
    R(RSYNC, A("rsync -a --copy-as=root src/ dst/", "rsync -a --copy-as",
               Why.UNKNOWN), "rsync -az src/ dst/"),
    R("Bash(openssl *)", A("openssl dgst -sha256 -sign /etc/ssl/private/k.pem f",
                           "reads /etc/ssl/private/k.pem", Why.SECRET),
      "openssl dgst -sha256 f"),
    R("Bash(openssl *)", A("openssl req -config /tmp/o.cnf -new", "openssl req -config",
                           Why.EXEC, RUNS),
      "openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=x"),
    R("Bash(gzip *)", A("gzip -f data.csv", "gzip -f", Why.WRITES), "gzip -k data.csv"),
    R("Bash(tar *)", A("tar -xf a.tar --overwrite", "--overwrite",
                       Why.WRITES), "tar -xf a.tar"),
    R("Bash(chown *)", A("chown -R alice src", "chown -R",
                         Why.WRITES),
      "chown alice notes.txt"),
    R("Bash(install *)", A("install -s --strip-program=./evil app bin/app",
                           "install -s --strip-program", Why.EXEC,
                           RUNS), "install -m 755 app bin/app"),
    R("Bash(touch *)", A("touch -r /etc/shadow notes.txt", "reads /etc/shadow", Why.SECRET),
      "touch -d 2024-01-01 notes.txt"),
    R("Bash(awk *)", A("awk -p /tmp/prof '{print $1}' f", "awk -p",
                       Why.WRITES), "awk '{print $1}' f"),
    R("Bash(less *)", A("less -O /tmp/copy f", "less -O", Why.WRITES),
      "less -R f"),
    R("Bash(man *)", A("man -C /tmp/man.conf ls", "man -C",
                       Why.EXEC, RUNS),
      "man -k sort"),
    R("Bash(patch *)", A("patch -e f.txt fix.ed", "patch -e", Why.EXEC, RUNS),
      "patch -p1 -i fix.patch"),
    R("Bash(rg *)", A("rg --hostname-bin ./evil x", "rg --hostname-bin",
                      Why.EXEC, RUNS), "rg -n TODO src"),
    R("Bash(sqlite3 *)", A("sqlite3 -init /tmp/init.sql app.db", "sqlite3 -init",
                           Why.EXEC, RUNS),
      "sqlite3 -version"),
]

ROWS = GIT_ROWS + GH_ROWS + PACKAGE_ROWS + BUILD_ROWS + CONTAINER_ROWS + TOOL_ROWS


def _raising() -> list[object]:
    return [pytest.param(row, LEVELS[level], id=f"{level}:{row.attack.command[:60]}")
            for row in ROWS for level in row.attack.levels]


def _everyday() -> list[object]:
    pairs = dict.fromkeys((row.rule, row.everyday) for row in ROWS)
    return [pytest.param(rule, command, id=f"{command[:50]} | {rule}")
            for rule, command in pairs]


@pytest.mark.parametrize(("row", "autonomy"), _raising())
def test_the_broad_rule_does_not_cover_the_raising_form(row: Raising,
                                                        autonomy: Autonomy) -> None:
    found = assess(row.attack.command, context(autonomy, allow=[row.rule]))
    assert found.verdict is not Verdict.ALLOW, explain(found)
    where = blocking_part(found, row.attack.part, row.attack.why)
    assert where is not None, (f"expected {row.attack.part!r} to block because "
                               f"{row.attack.why!r} under {row.rule}\n" + explain(found))


@pytest.mark.parametrize(("rule", "command"), _everyday())
def test_the_broad_rule_covers_the_everyday_form(rule: str, command: str) -> None:
    found = assess(command, context(Autonomy.CAUTIOUS, allow=[rule]))
    assert found.verdict is Verdict.ALLOW, explain(found)


def test_every_row_is_one_option_and_the_table_is_as_large_as_promised() -> None:
    commands = [row.attack.command for row in ROWS]
    assert len(set(commands)) == len(commands), "a raising form is listed twice"
    assert 100 <= len(ROWS) <= 200, len(ROWS)
