package dev.egressproxies.kvm.common.image;

import java.io.IOException;

/**
 * Where a fetch delivers the image: typically a volume upload. It must read the content to its
 * end (or its announced length), and may throw whatever its own writing throws.
 */
@FunctionalInterface
public interface ImageConsumer {

    /**
     * Writes the image somewhere.
     *
     * @param content the image's bytes; reads fail with an {@link IOException} when the fetch fails
     * @throws IOException when the content or the consumer's own writing fails
     */
    void accept(ImageContent content) throws IOException;
}
