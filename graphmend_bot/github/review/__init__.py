"""The pull-request review: analyse the changed files, plan the comments, post them (same repository
or, through a bundle, from a fork), or print them locally (`graphmend review`)."""
