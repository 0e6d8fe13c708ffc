package dev.egressproxies.kvm;

import java.io.StringReader;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathExpressionException;
import javax.xml.xpath.XPathFactory;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * Domain or volume XML the provider handed to the fake host, parsed and queried with XPath, so
 * assertions check what libvirt would read rather than how the writer happened to format it.
 * Without namespaces: the platform's metadata is checked through what the fake hands back.
 */
final class ParsedXml {
    private final Document document;

    private ParsedXml(Document document) {
        this.document = document;
    }

    /** Parses {@code xml}; XML that does not parse fails the test. */
    static ParsedXml of(String xml) {
        try {
            return new ParsedXml(DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(new InputSource(new StringReader(xml))));
        } catch (Exception malformed) {
            throw new AssertionError("the provider wrote XML that does not parse:\n" + xml, malformed);
        }
    }

    /** The string value of {@code xpath}; {@code ""} when it selects nothing. */
    String text(String xpath) {
        return (String) evaluate(xpath, XPathConstants.STRING);
    }

    /** How many nodes {@code xpath} selects. */
    int count(String xpath) {
        return ((NodeList) evaluate(xpath, XPathConstants.NODESET)).getLength();
    }

    private Object evaluate(String xpath, javax.xml.namespace.QName type) {
        try {
            return XPathFactory.newInstance().newXPath().evaluate(xpath, document, type);
        } catch (XPathExpressionException invalid) {
            throw new IllegalArgumentException("not an XPath expression: " + xpath, invalid);
        }
    }
}
