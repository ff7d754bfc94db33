"""Commit messages from the staged diff (`rag/commitMessage`, `ragls commit-msg`): reading `git diff` robustly and
rendering it for a prompt (`gitdiff`), and the message written from it with the workspace's context (`message`)."""
