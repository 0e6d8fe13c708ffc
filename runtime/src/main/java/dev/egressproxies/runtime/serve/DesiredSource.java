package dev.egressproxies.runtime.serve;

import dev.egressproxies.runtime.apply.DesiredState;
import java.io.IOException;
import java.time.Instant;

/**
 * Where {@code serve} reads the desired set it keeps in force: a file on this machine, or a key in
 * etcd that every replica reads. Each read is checked whole, as {@code apply} checks a file.
 */
public interface DesiredSource extends AutoCloseable {
    /**
     * A desired set that passed every check.
     *
     * @param state    the set
     * @param revision what identifies this version of it: a digest of the file, or etcd's revision
     * @param loadedAt when it was read
     */
    record Loaded(DesiredState state, String revision, Instant loadedAt) {
    }

    /**
     * Reads and checks the set.
     *
     * @throws dev.egressproxies.runtime.config.ConfigException listing every problem, as apply reports them
     */
    Loaded load();

    /** The set's revision now, without checking it; {@code ""} when it cannot be read. */
    String revision();

    /**
     * Calls {@code onChange} after each change of the set, on a daemon thread, until closed.
     *
     * @throws IOException when the source cannot be watched
     */
    void watch(Runnable onChange) throws IOException;

    /** Where the set is, as the API and the logs name it: a file's path, or {@code etcd:KEY}. */
    String location();

    /** Whether the set is a file on this machine. */
    boolean isFile();

    @Override
    void close() throws IOException;
}
