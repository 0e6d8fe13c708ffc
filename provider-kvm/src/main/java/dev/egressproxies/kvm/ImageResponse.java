package dev.egressproxies.kvm;

import java.io.IOException;
import java.io.InputStream;

/**
 * An image download whose response has been checked: its body, not yet read, and its length from
 * Content-Length. Closing it closes the body, which also ends a read that waits for data.
 *
 * @param body   the response body
 * @param length the number of bytes the body holds
 */
record ImageResponse(InputStream body, long length) implements AutoCloseable {

    @Override
    public void close() {
        try {
            body.close();
        } catch (IOException ignored) {
            // Nothing more to release: the body belongs to a response that is over either way.
        }
    }
}
