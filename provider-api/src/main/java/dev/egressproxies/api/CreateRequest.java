package dev.egressproxies.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What {@link Provider#create} is asked to make: a named instance with a UID, a placement and the
 * cloud-init user-data it boots with.
 *
 * <p>The record accepts any values; {@link #validate(String)} checks them against the contract's
 * rules and every provider calls it before any I/O.
 *
 * @param name      the instance name, a DNS label; unique per provider entry, across all its zones
 * @param uid       an opaque identifier of the owner's object, stored with the instance
 * @param placement where and as what to create it
 * @param cloudInit cloud-init user-data, or {@code ""} for none
 * @since 1.0.0
 */
public record CreateRequest(String name, String uid, Placement placement, String cloudInit) {
    /**
     * The largest cloud-init user-data accepted, in UTF-8 bytes.
     *
     * @since 1.0.0
     */
    public static final int MAX_CLOUD_INIT_BYTES = 256 * 1024;
    /**
     * The longest UID accepted, in characters.
     *
     * @since 1.0.0
     */
    public static final int MAX_UID_LENGTH = 128;

    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");
    private static final Pattern PRINTABLE_ASCII = Pattern.compile("[\\x21-\\x7e]+");

    /**
     * Normalises absent values, so {@link #validate} reports them instead of failing on null.
     *
     * @since 1.0.0
     */
    public CreateRequest {
        name = Objects.requireNonNullElse(name, "");
        uid = Objects.requireNonNullElse(uid, "");
        placement = Objects.requireNonNullElse(placement, new Placement("", "", ""));
        cloudInit = Objects.requireNonNullElse(cloudInit, "");
    }

    /**
     * Checks the request against the contract's rules, without any I/O.
     *
     * @param entry the provider entry's name, for the error
     * @throws ProviderException PERMANENT, with a message saying what to fix
     * @since 1.0.0
     */
    public void validate(String entry) {
        String problem = problem();
        if (problem != null) {
            throw new ProviderException(ErrorKind.PERMANENT, Operation.CREATE, entry, name, problem);
        }
    }

    /**
     * The sha256 of the user-data's UTF-8 bytes, in lower-case hex: what a backend records with the
     * instance and reports as {@link Instance#userDataSha256()}, so a caller can tell whether an
     * instance runs the user-data it now asks for without the backend storing the user-data itself.
     *
     * @since 1.0.0
     */
    public String cloudInitSha256() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(cloudInit.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides SHA-256", e);
        }
    }

    private String problem() {
        if (!DNS_LABEL.matcher(name).matches()) {
            // A name too long to be a label is not repeated: the error's context shows it already.
            String named = name.length() > 63 ? "name of " + name.length() + " characters" : "name '" + name + "'";
            return named + " is not a DNS label: use 1 to 63 characters of a-z, 0-9 and '-',"
                    + " starting and ending with a letter or digit";
        }
        if (uid.isEmpty()) {
            return "uid is empty: give every instance the UID of the object that owns it";
        }
        if (uid.length() > MAX_UID_LENGTH || !PRINTABLE_ASCII.matcher(uid).matches()) {
            return "uid must be 1 to " + MAX_UID_LENGTH + " printable ASCII characters without spaces";
        }
        int cloudInitBytes = cloudInit.getBytes(StandardCharsets.UTF_8).length;
        if (cloudInitBytes > MAX_CLOUD_INIT_BYTES) {
            return "cloud-init user-data is " + cloudInitBytes + " bytes, over the limit of "
                    + MAX_CLOUD_INIT_BYTES + ": shrink it, or fetch large files from the guest instead";
        }
        return null;
    }
}
