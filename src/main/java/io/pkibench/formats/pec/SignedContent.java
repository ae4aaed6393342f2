package io.pkibench.formats.pec;

/**
 * What a provider signed inside a document: its daticert.xml and, when there is one, the original
 * message ({@code postacert.eml}).
 */
public record SignedContent(Daticert daticert, byte[] original) {}
