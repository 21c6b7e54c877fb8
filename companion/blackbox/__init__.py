"""The black box: every real game keeps what is needed to see it again, replay it and fix what
the camera got wrong.

* :mod:`.layout`: where a game's recording lives in the state directory, its index, the space
  the recordings take, the cap;
* :mod:`.recorder`: the frames kept while a game runs with a camera (its own thread);
* :mod:`.source`: a recording read back, from a state directory or a report bundle (checked);
* :mod:`.bundle`: the report bundle (``companion report``, the host's 問題を報告);
* :mod:`.replay`: the frames fed through the live watcher and the camera decisions again, and
  every difference against the log (``companion replay``);
* :mod:`.timelapse`: the game's move frames as a short animation.
"""
