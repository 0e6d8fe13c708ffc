package dev.egressproxies.kvm.common.libvirt;

import org.libvirt.Connect;
import org.libvirt.ErrorCallback;

/**
 * The native libvirt client library ({@code libvirt.so.0}), loaded once per JVM with libvirt's own
 * error printing silenced.
 */
final class NativeLibvirt {
    private NativeLibvirt() {
    }

    /**
     * Loads the library and installs the silent error callback, on the first call only.
     *
     * @throws IllegalStateException when the native library cannot be loaded
     */
    static void ensureLoaded() {
        try {
            Loaded.confirm();
        } catch (LinkageError error) {
            throw new IllegalStateException("the native libvirt client library (libvirt.so.0) could not be loaded:"
                    + " install it (Debian and Ubuntu: 'apt-get install libvirt0'), or point jna.library.path at"
                    + " the folder that holds it", error);
        }
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
