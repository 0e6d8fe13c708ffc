package dev.egressproxies.kvm2;

import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.image.FetchLocation;
import dev.egressproxies.kvm.common.image.ImageSource;
import dev.egressproxies.kvm2.config.CatalogueImage;
import java.util.Locale;
import java.util.Map;

/**
 * The images placements of a {@code kvm2} entry may name: a key of the entry's catalogue, or an
 * http or https URL, which gets the defaults (qcow2, what its suffix implies, UEFI, no digest).
 */
final class ImageCatalogue {
    private final String entry;
    private final Map<String, CatalogueImage> images;
    private final FetchLocation fetch;

    /** {@code fetch}: where images are fetched unless a catalogue entry says otherwise; URL images always. */
    ImageCatalogue(String entry, Map<String, CatalogueImage> images, FetchLocation fetch) {
        this.entry = entry;
        this.images = images;
        this.fetch = fetch;
    }

    /**
     * The image {@code placement.image} names.
     *
     * @throws dev.egressproxies.api.ProviderException PERMANENT when it is neither a key nor a usable
     *                                                 URL; the message never shows the URL's path,
     *                                                 query or user information
     */
    Kvm2Image resolve(String image, Call call) {
        CatalogueImage configured = images.get(image);
        if (configured != null) {
            return image(image, "image '" + image + "'", image, configured.source(), configured.uefi(),
                    configured.fetchLocation(fetch));
        }
        if (!isHttpUrl(image)) {
            throw call.permanent("placement.image '" + image + "' is neither a key of images of provider entry '"
                    + entry + "' " + images.keySet() + " nor an http or https URL: use one of the keys, add it to"
                    + " images, or give the image's URL");
        }
        ImageSource source;
        try {
            source = ImageSource.builder(image).build();
        } catch (IllegalArgumentException unusable) {
            // ImageSource's messages never repeat the URL.
            throw call.permanent("placement.image is an http or https URL that cannot be fetched: "
                    + unusable.getMessage());
        }
        return image(source.redactedUrl().toString(), "", BaseVolumeNames.URL_KEY, source, true, fetch);
    }

    /** Whether {@code volume} is a base volume of this entry (see {@link BaseVolumeNames#isBase}). */
    boolean isBaseVolume(String volume) {
        return BaseVolumeNames.isBase(entry, volume);
    }

    /** Where images are fetched unless a catalogue entry says otherwise. */
    FetchLocation fetch() {
        return fetch;
    }

    /** Every catalogue entry, for the preflight checks. */
    Map<String, CatalogueImage> entries() {
        return images;
    }

    private Kvm2Image image(String label, String subject, String key, ImageSource source, boolean uefi,
                            FetchLocation location) {
        return new Kvm2Image(label, subject, key, BaseVolumeNames.base(entry, key, source), source, uefi,
                location == FetchLocation.HOST);
    }

    private static boolean isHttpUrl(String image) {
        String lower = image.toLowerCase(Locale.ROOT);
        return lower.startsWith("http://") || lower.startsWith("https://");
    }
}
