#pragma once
// Minimal Win32 stand-ins for building the engine as a Linux shared library.
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#define WINAPI
#define CALLBACK
#define INFINITE 0xFFFFFFFF
typedef int INT;
typedef int BOOL;
typedef uint32_t DWORD;
typedef uint16_t WORD;
typedef uint32_t UINT;
typedef long LONG;
typedef void* HANDLE;
typedef void* HWND;
typedef void* HDC;
typedef void* HMENU;
typedef void* HBITMAP;
typedef void* HINSTANCE;
typedef long LRESULT;
typedef long WPARAM;
typedef long LPARAM;
typedef long INT_PTR;
#ifndef TRUE
#define TRUE 1
#define FALSE 0
#endif
inline HANDLE CreateEvent(void*, int, int, void*) { return nullptr; }
inline int SetEvent(HANDLE) { return 1; }
inline int ResetEvent(HANDLE) { return 1; }
inline DWORD WaitForSingleObject(HANDLE, DWORD) { return 0; }
inline int CloseHandle(HANDLE) { return 1; }
inline HANDLE CreateThread(void*, int, DWORD (*)(void*), void*, int, DWORD*) { return nullptr; }
inline void Sleep(DWORD ms) { usleep(ms * 1000); }
#define _stricmp strcasecmp
#define stricmp strcasecmp
#define _strnicmp strncasecmp
#define __cdecl
#define __declspec(x)
#include <ctype.h>
#include <stdlib.h>
#define _strdup strdup
inline char* _strlwr(char* s) { for (char* p = s; *p; ++p) *p = (char)tolower((unsigned char)*p); return s; }
