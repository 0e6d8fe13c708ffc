package dev.egressproxies.kvm.common.testing;

import dev.egressproxies.kvm.common.xml.InstanceMetadata;

/**
 * The platform's metadata element as a domain's {@code <metadata>} holds it, for domains a test
 * puts on a {@link FakeLibvirtHost} directly instead of creating them through an engine. Values
 * are written as given: tests pass plain names and UIDs.
 */
public final class PlatformMetadata {
    /** The creation time every element of this class records. */
    public static final String CREATED = "2025-01-31T12:00:00Z";

    private PlatformMetadata() {
    }

    /** The element of a domain created through the provider entry {@code entry}. */
    public static String of(String entry, String uid) {
        return element("<ep:uid>" + uid + "</ep:uid><ep:created>" + CREATED + "</ep:created><ep:entry>" + entry
                + "</ep:entry>");
    }

    /** The element of a domain defined before the platform recorded entries: UID and creation time only. */
    public static String withoutEntry(String uid) {
        return element("<ep:uid>" + uid + "</ep:uid><ep:created>" + CREATED + "</ep:created>");
    }

    private static String element(String fields) {
        return "<ep:instance xmlns:ep='" + InstanceMetadata.NAMESPACE + "'>" + fields + "</ep:instance>";
    }
}
