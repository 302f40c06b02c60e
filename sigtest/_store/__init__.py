"""The experiment store (layer ``store``): runs fed one by one, tested later.

Above the workflows (an experiment runs :func:`sigtest.compare`), below the
command line. This ``__init__`` imports nothing; its modules import the
layers below and, within the folder, ``files`` <- ``feed``, ``publish`` <-
``store`` <- ``experiment``.

* ``files.py``: the files of a store: ``CorruptStoreError``, atomic
  writes, the lock, symbolic-link refusal, the manifest check, the gold file;
* ``feed.py``: feed and remove: the checks against the stored gold and runs,
  then the writes;
* ``publish.py``: ``results.tsv`` and ``outcomes.json`` of a run, published
  as one unit and read back checked;
* ``store.py``: ``ExperimentStore``: open, recover, lock, read, the
  aligned predictions of a run (its ``feed``, ``remove`` and ``publish``
  delegate to the modules above);
* ``experiment.py``: :class:`sigtest.experiment.Experiment`, the public
  object over a store.

The on-disk format
------------------
Store layout (a directory)::

    manifest.json        gold ids and labels (and cluster / stratum ids),
                         systems, runs (ids, file, shape)
    manifest.json.bak    the previous manifest (see "Recovery" below)
    gold-<hex>.json      a large gold (see below)
    runs/s000_r0.npy     predictions of system 0, run 0 (no pickle)
    results.tsv          tidy table of the last run() (tab separated)
    outcomes.json        parameters, versions, seed, records, summary, letters,
                         and the sha256 of results.tsv (``outputs``)

A large gold (more than :data:`~sigtest._store.files.GOLD_INLINE_MAX` items) lives in its own
file ``gold-<hex>.json`` instead: the manifest (format version 3) records
its name and sha256, it is rewritten (under a new name, the previous one
kept for the backup manifest) only when a feed changes the gold, and runs
fed without ids store ``"ids": null`` (``0..n-1``). A feed then writes what
it adds, not the whole gold. Reading a version-3 manifest reads its gold
file back into the same in-memory layout, so the rest of the store sees one
format; a gold file that does not match its sha256 makes the store corrupt.

Cluster (``groups``) and stratum (``strata``) ids are item annotations like
the gold labels: given with a feed for its ``ids``, stored in the manifest's
``gold`` entry aligned with the gold ids, checked to agree on the ids that
later feeds share, and passed to :func:`sigtest.compare` by ``run``. A
manifest holding them has format version 2 (older sigtest versions, which
would ignore them, refuse it); one without them stays version 1.

Writes. Every file is written to a temporary file, flushed to disk and moved
into place with ``os.replace`` (:func:`~sigtest._store.files.atomic_write`); ``feed``, ``remove``
and the publication of ``run``'s outputs happen under the store's lock, so
several processes of one pipeline may feed the same store. A feed is checked
against the stored gold and runs (kind, dtype, number of columns, ids)
before anything is written, so a store never holds a run it cannot test.

Lock. ``.manifest.lock`` is locked with ``fcntl.flock`` (POSIX), a lock the
operating system releases when its holder dies, so a writer killed by
SIGKILL or SIGTERM never blocks the next one; a live holder makes others
wait up to ``timeout`` seconds (then ``RuntimeError``). The holder deletes
the file when it is done (a waiter that locked the deleted file notices
and locks the new one). On Windows ``msvcrt.locking`` locks the file
instead (also released by the system when the process ends); there the
empty file stays.

Publication of a run. ``results.tsv`` and ``outcomes.json`` are one unit:
both are first written to temporary files, then a commit record
``.outputs.commit`` (their names and sha256) is written atomically, then
both are moved into place and the record deleted. A process killed before
the record exists leaves the previous outputs untouched (its temporary
files are deleted on the next open); one killed after is completed on the
next open or read (roll forward). ``outcomes.json`` records the sha256 of
``results.tsv``, so a truncated, edited or mismatched table is an error,
never a garbled row.

Hostile or damaged files. Every path taken from the manifest is checked: a
system key must look like ``s000`` and a run file must be a plain
``runs/<name>.npy`` (no folder, no ``..``), else the manifest is reported
as corrupt (``ValueError`` naming the file and the key) and nothing is
read or written; so is a manifest that is not valid JSON or lacks a key.
A prediction file that is missing, not a ``.npy`` array (e.g. an ``.npz``
archive), truncated, or of another shape than its ids is a ``ValueError``
naming the file.

Symbolic links. The store's own entries (``manifest.json``, its backup,
the lock, ``runs/`` and the files in it, ``results.tsv``, ``outcomes.json``,
the commit record) must not be symbolic links: every read, lock and load
checks them and raises :class:`CorruptStoreError` naming the link, before
anything is read, written or deleted, so a linked ``runs/`` can neither
receive predictions nor lose files to the tidying below, and a linked run
file is never read. The store directory itself may be a link.

Hygiene. On open
(:meth:`ExperimentStore.open <sigtest._store.store.ExperimentStore.open>`,
called by ``Experiment.load``) and whenever the lock is taken, the temporary files
that killed writers left (``.<name>.<random>.tmp`` of the store's own file
names) are deleted, and so, under the lock with a valid manifest, are
prediction files with the store's naming (``runs/s<key>_r<run>[-<hex>].npy``)
that the manifest does not reference, and gold files (``gold-<hex>.json``)
that neither the manifest nor its backup references. No other file is ever
deleted.

Recovery. Before each replacement of ``manifest.json`` the previous one is
kept as ``manifest.json.bak``. A corrupt (e.g. truncated) or missing
manifest is never repaired silently: reading it raises a ``ValueError``
that says so, and
:meth:`ExperimentStore.recover <sigtest._store.store.ExperimentStore.recover>`
(``Experiment.recover()``) puts the backup back, keeping the damaged file
as ``manifest.json.corrupt`` and dropping (with a warning) the runs whose
prediction files are gone. The last feed or remove before the damage is
lost.
"""

__all__ = []
