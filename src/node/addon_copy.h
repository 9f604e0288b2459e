/* addon_copy.h: detection of another copy of the native addon in the
 * process (see addon_copy.c for why two copies cannot share a pool). */
#ifndef WTP_ADDON_COPY_H
#define WTP_ADDON_COPY_H

/* The path of another copy of the addon already loaded in this process, or
 * NULL if there is none (or the platform cannot list its loaded objects).
 * Looks once, at the first call; thread-safe. */
const char* wtp__other_addon_copy(void);

#endif /* WTP_ADDON_COPY_H */
