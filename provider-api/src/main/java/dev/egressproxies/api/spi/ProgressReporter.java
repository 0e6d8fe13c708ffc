package dev.egressproxies.api.spi;

/**
 * Where a plugin reports the progress of a long operation, such as an image download, so the
 * command-line tool can show bytes, rate and time left on a terminal.
 *
 * @since 1.0.0
 */
public interface ProgressReporter {

    /**
     * A reporter that shows nothing.
     *
     * @since 1.0.0
     */
    ProgressReporter SILENT = (description, totalBytes) -> new Progress() {
        @Override
        public void advance(long bytes) {
        }

        @Override
        public void close() {
        }
    };

    /**
     * Starts reporting one operation.
     *
     * @param description what is happening, for example "downloading debian-12 to host-1"
     * @param totalBytes  the expected size, or {@code -1} when unknown
     * @return the handle to advance and close; closing it ends the report
     * @since 1.0.0
     */
    Progress begin(String description, long totalBytes);

    /**
     * The progress of one operation.
     *
     * @since 1.0.0
     */
    interface Progress extends AutoCloseable {
        /**
         * Records that {@code bytes} more bytes were done.
         *
         * @since 1.0.0
         */
        void advance(long bytes);

        /**
         * Ends the report, whether the operation succeeded or not.
         *
         * @since 1.0.0
         */
        @Override
        void close();
    }
}
