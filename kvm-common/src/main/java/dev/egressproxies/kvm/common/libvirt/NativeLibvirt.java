package dev.egressproxies.kvm.common.libvirt;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.libvirt.Connect;
import org.libvirt.ErrorCallback;

/**
 * The native libvirt client library ({@code libvirt.so.0}), loaded once per JVM with libvirt's own
 * error printing silenced.
 */
public final class NativeLibvirt {
    private static CompletableFuture<Void> loading;

    private NativeLibvirt() {
    }

    /**
     * Starts loading the library on another thread and returns at once. A cold process spends about
     * a tenth of a second in it, which a dial hides behind its SSH handshake.
     */
    public static void loadAhead() {
        loadingStarted();
    }

    /**
     * Loads the library and installs the silent error callback, on the first call only; waits for
     * a load started by {@link #loadAhead}.
     *
     * @throws IllegalStateException when the native library cannot be loaded
     */
    static void ensureLoaded() {
        try {
            loadingStarted().join();
        } catch (CompletionException failed) {
            throw new IllegalStateException("the native libvirt client library (libvirt.so.0) could not be loaded:"
                    + " install it (Debian and Ubuntu: 'apt-get install libvirt0'), or point jna.library.path at"
                    + " the folder that holds it", failed.getCause());
        }
    }

    private static synchronized CompletableFuture<Void> loadingStarted() {
        if (loading == null) {
            loading = CompletableFuture.runAsync(Loaded::confirm, work -> {
                Thread loader = new Thread(work, "egress-libvirt-load");
                loader.setDaemon(true);
                loader.start();
            });
        }
        return loading;
    }

    /** Initialization-on-demand holder: the JVM runs this once, thread-safely, on first use. */
    private static final class Loaded {
        /**
         * Reachable for the life of the JVM on purpose: libvirt keeps only a native pointer to the
         * callback, and one the garbage collector reclaimed would crash the process on the next
         * error.
         */
        private static final ErrorCallback SILENT = new ErrorCallback();

        static {
            try {
                Connect.setErrorCallback(SILENT);
            } catch (org.libvirt.LibvirtException e) {
                // Installing a callback cannot fail in libvirt itself; the declaration is the binding's.
                throw new IllegalStateException("could not silence libvirt's error printing", e);
            }
        }

        private Loaded() {
        }

        static void confirm() {
            // Touching the class is the point: its initializer does the work once.
        }
    }
}
