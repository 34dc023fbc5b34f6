package io.etcdoperator.operator.backup;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Optional;

/**
 * Where snapshots live: an S3 bucket ({@link S3Store}) or a directory on a claim ({@link
 * FileStore}). Objects are named by a key relative to the store.
 *
 * <p>An {@link Upload} is invisible under its key until {@link Upload#commit()}: a multipart upload
 * is completed, a file renamed into place. A writer that dies before leaves nothing under the key
 * (an S3 multipart upload that was never completed or aborted is dropped by the bucket's lifecycle
 * rule for incomplete uploads, or stays invisible).
 *
 * <p>Failures are {@link StoreException}s that say what is wrong in words a user can act on.
 */
public interface SnapshotStore extends AutoCloseable {
  /**
   * A write in progress: bytes go to {@link #write}, and appear under the key on {@link #commit}.
   * Closing an upload that was not committed aborts it.
   */
  abstract class Upload extends OutputStream {
    private boolean committed;
    private boolean aborted;

    /** Makes the object visible under its key, complete. */
    public final void commit() throws IOException {
      if (aborted) {
        throw new IllegalStateException("the upload was aborted");
      }
      doCommit();
      committed = true;
    }

    /** Drops what was written; never throws. */
    public final void abort() {
      if (!committed && !aborted) {
        aborted = true;
        doAbort();
      }
    }

    @Override
    public final void close() {
      abort();
    }

    protected abstract void doCommit() throws IOException;

    protected abstract void doAbort();
  }

  /**
   * Checks that the store can be written with these credentials before any work is done (the bucket
   * exists and accepts them; the directory exists).
   */
  void check() throws IOException;

  Upload upload(String key) throws IOException;

  /** Writes a small object at once (the manifest). */
  void put(String key, byte[] content) throws IOException;

  /** Reads an object; {@link StoreException.Kind#NOT_FOUND} when it is not there. */
  InputStream open(String key) throws IOException;

  /** The object's size, or empty when it is not there. */
  Optional<Long> size(String key) throws IOException;

  /** Keys under {@code prefix} (a directory: {@code prefix/...}), in key order. */
  List<String> list(String prefix) throws IOException;

  /** Deletes an object; nothing when it is not there. */
  void delete(String key) throws IOException;

  /** How status names an object of this store: s3://bucket/key, pvc://claim/path. */
  String uri(String key);

  @Override
  void close();
}
